#!/usr/bin/python3
"""Reference values for paired comparisons (stats/compare.go), computed by
established implementations.

    /usr/bin/python3 stats/testdata/refs/make_compare_refs.py > stats/testdata/refs/compare_refs.json

Sources: statsmodels multipletests (holm, fdr_bh) and mcnemar (exact=True);
scipy.stats binom (the mid-p of McNemar's exact test: 2·P(X ≤ k) − P(X = k)
for X ~ Binom(b + c, ½), k = min(b, c), Fagerland et al. 2013, written out
here, capped at 1); scipy.stats.permutation_test with
permutation_type='samples' and every sign flip enumerated (n_resamples =
inf) for the paired sign-flip test of the mean difference, two-sided.
"""
import json

import numpy as np
from scipy import stats
from statsmodels.stats import contingency_tables, multitest

rng = np.random.default_rng(20261206)
out = {"multipletests": [], "mcnemar": [], "signflip": []}

for n in (1, 2, 3, 5, 8, 13, 30):
    for _ in range(4):
        p = rng.uniform(0, 1, n) ** rng.uniform(1, 6)
        if n > 3:
            p[rng.integers(0, n)] = p[0]  # a tie
        holm = multitest.multipletests(p, method="holm")[1]
        bh = multitest.multipletests(p, method="fdr_bh")[1]
        out["multipletests"].append({"p": list(p), "holm": list(holm), "bh": list(bh)})

for b, c in [(0, 0), (0, 1), (1, 0), (3, 3), (2, 9), (9, 2), (10, 25), (40, 41), (0, 20), (150, 120), (7, 0)]:
    n = b + c
    res = contingency_tables.mcnemar([[5, b], [c, 5]], exact=True)
    k = min(b, c)
    mid = 1.0 if n == 0 else min(1.0, 2 * stats.binom.cdf(k, n, 0.5) - stats.binom.pmf(k, n, 0.5))
    out["mcnemar"].append({"b": b, "c": c, "p": float(res.pvalue), "stat": float(res.statistic), "midp": float(mid)})

for n in (3, 5, 8, 12):
    for _ in range(3):
        a = rng.normal(0.5, 0.3, n)
        b = a - rng.normal(0.1, 0.2, n)
        res = stats.permutation_test((a, b), lambda x, y: np.mean(x - y), permutation_type="samples",
                                     n_resamples=np.inf, alternative="two-sided")
        out["signflip"].append({"a": list(a), "b": list(b), "p": float(res.pvalue), "diff": float(np.mean(a - b))})

print(json.dumps(out))
