"""Reference Cohen's kappa and its asymptotic standard error
(statsmodels.stats.inter_rater.cohens_kappa: kappa, std_kappa — Fleiss,
Cohen and Everitt 1969) for stats.KappaSE (TestKappaSEMatchesStatsmodels).
Run: python3 make_kappa_se_refs.py"""
import json

import numpy as np
from statsmodels.stats.inter_rater import cohens_kappa

tables = [
    [[40, 5], [3, 52]],
    [[90, 2], [1, 7]],
    [[10, 8], [6, 12]],
    [[200, 1], [4, 0]],
    [[12, 3, 1], [2, 20, 4], [0, 5, 30]],
]
rng = np.random.default_rng(3)
for _ in range(5):
    tables.append(rng.integers(0, 60, size=(2, 2)).tolist())
out = []
for t in tables:
    r = cohens_kappa(np.asarray(t))
    out.append({"table": t, "kappa": float(r.kappa), "std_kappa": float(r.std_kappa)})
with open("kappa_se_refs.json", "w") as f:
    json.dump({"source": "statsmodels cohens_kappa (kappa, std_kappa)", "cases": out}, f, indent=1)
