#!/usr/bin/python3
"""Reference values for the Rogan-Gladen correction (stats/correct.go).

    /usr/bin/python3 stats/testdata/refs/make_correct_refs.py > stats/testdata/refs/correct_refs.json

No Debian package implements it: the estimator (Rogan and Gladen 1978) and
its delta-method variance are written out here with numpy and scipy's normal
quantile, independent of the Go code:
    pi = (p + Sp - 1) / (Se + Sp - 1), clipped to [0, 1];
    Var = (varP + pi^2 Se(1-Se)/nPos + (1-pi)^2 Sp(1-Sp)/nNeg) / (Se + Sp - 1)^2, pi unclipped;
    interval pi +- z SE, clipped; undefined when Se + Sp <= 1.
"""
import json

import numpy as np
from scipy import stats

rng = np.random.default_rng(20261206)
out = []
cases = [(0.3, 0.0004, 0.9, 40, 0.95, 60), (0.1, 0.0001, 0.7, 12, 0.98, 88), (0.02, 0.00002, 0.8, 20, 0.9, 80),
         (0.6, 0.001, 0.55, 30, 0.5, 30), (0.5, 0.002, 0.4, 10, 0.5, 10), (0.95, 0.0003, 0.97, 100, 0.9, 50)]
for _ in range(6):
    cases.append((float(rng.uniform(0, 1)), float(rng.uniform(1e-5, 1e-2)), float(rng.uniform(0.5, 1)), int(rng.integers(5, 200)),
                  float(rng.uniform(0.5, 1)), int(rng.integers(5, 200))))
for p, var_p, se, n_pos, sp, n_neg in cases:
    j = se + sp - 1
    row = {"p": p, "varP": var_p, "se": se, "nPos": n_pos, "sp": sp, "nNeg": n_neg, "level": 0.95}
    if j <= 0:
        row["defined"] = False
    else:
        pi = (p + sp - 1) / j
        v = (var_p + pi ** 2 * se * (1 - se) / n_pos + (1 - pi) ** 2 * sp * (1 - sp) / n_neg) / j ** 2
        s = float(np.sqrt(v))
        z = stats.norm.ppf(0.975)
        row.update({"defined": True, "rate": float(np.clip(pi, 0, 1)), "seOut": s, "lo": float(np.clip(pi - z * s, 0, 1)),
                    "hi": float(np.clip(pi + z * s, 0, 1))})
    out.append(row)
print(json.dumps(out))
