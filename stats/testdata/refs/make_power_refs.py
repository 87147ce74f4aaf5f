#!/usr/bin/python3
"""Reference values for sample-size planning (stats/power.go).

    /usr/bin/python3 stats/testdata/refs/make_power_refs.py > stats/testdata/refs/power_refs.json

Sources: statsmodels.stats.power (NormalIndPower().power, zt_ind_solve_power
with ratio=1, two-sided) and statsmodels.stats.proportion.proportion_effectsize
(Cohen's h). The one-way ANOVA ICC(1) with n0 = (N - sum n_i^2 / N)/(k - 1)
and the design effect 1 + (m - 1) rho have no Debian implementation: they are
written out here with numpy, independent of the Go code.
"""
import json

import numpy as np
from statsmodels.stats.power import NormalIndPower, zt_ind_solve_power
from statsmodels.stats.proportion import proportion_effectsize

rng = np.random.default_rng(20261206)
out = {"power": [], "solve": [], "mde": [], "icc": []}
for p1, p2 in [(0.30, 0.35), (0.10, 0.15), (0.50, 0.45), (0.05, 0.02), (0.8, 0.9)]:
    h = float(proportion_effectsize(p2, p1))
    for n in (20, 100, 1000, 5000):
        out["power"].append({"h": h, "n": n, "alpha": 0.05, "power": float(NormalIndPower().power(effect_size=h, nobs1=n, alpha=0.05, ratio=1))})
    for alpha, power in [(0.05, 0.8), (0.01, 0.9)]:
        n = zt_ind_solve_power(effect_size=h, alpha=alpha, power=power, ratio=1, alternative="two-sided")
        out["solve"].append({"h": h, "alpha": alpha, "power_target": power, "n": float(n)})
for n in (50, 400, 2400):
    h = NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=0.05, power=0.8, ratio=1)
    out["mde"].append({"n": n, "alpha": 0.05, "power_target": 0.8, "h": float(h)})


def icc1(groups):
    k = len(groups)
    n = sum(len(g) for g in groups)
    allv = np.concatenate(groups)
    mean = allv.mean()
    ssb = sum(len(g) * (np.mean(g) - mean) ** 2 for g in groups)
    ssw = sum(((np.asarray(g) - np.mean(g)) ** 2).sum() for g in groups)
    msb, msw = ssb / (k - 1), ssw / (n - k)
    n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (k - 1)
    return max(0.0, (msb - msw) / (msb + (n0 - 1) * msw))


for k, m, rho_true in [(10, 5, 0.0), (20, 15, 0.3), (40, 3, 0.6), (8, 30, 0.1)]:
    groups = []
    for _ in range(k):
        pc = np.clip(rng.normal(0.3, 0.3 * rho_true + 0.01), 0, 1)
        size = m + int(rng.integers(-1, 2)) if m > 3 else m
        groups.append(list((rng.uniform(0, 1, size) < pc).astype(float)))
    out["icc"].append({"groups": groups, "icc": float(icc1(groups))})
print(json.dumps(out))
