#!/usr/bin/python3
"""Weighted Cohen's kappa references from scikit-learn (Debian python3-sklearn):

    /usr/bin/python3 stats/testdata/refs/make_weighted_kappa_refs.py > stats/testdata/refs/weighted_kappa_refs.json

Each case gives two raters' points of an ordered scale and the scale itself (passed to
cohen_kappa_score as labels=, so distances are the scale's positions even where a point is unused).
"""
import json

import numpy as np
import sklearn
from sklearn.metrics import cohen_kappa_score

rng = np.random.default_rng(20261205)
cases = []


def add(name, a, b, scale):
    out = {"name": name, "a": a, "b": b, "scale": scale}
    for w in ("linear", "quadratic"):
        out[w] = float(cohen_kappa_score(a, b, labels=scale, weights=w))
    cases.append(out)


scale5 = ["1", "2", "3", "4", "5"]
add("hand", ["1", "2", "3", "4", "5", "3", "2"], ["1", "3", "3", "5", "4", "2", "2"], scale5)
add("unused_points", ["1", "2", "5", "5", "1", "2"], ["2", "2", "5", "1", "1", "5"], scale5)
a = [str(int(x)) for x in rng.integers(1, 8, 60)]
b = [str(min(7, max(1, int(x) + int(d)))) for x, d in zip(a, rng.integers(-2, 3, 60))]
add("seven_point_60", a, b, [str(i) for i in range(1, 8)])
add("three_point", ["low", "mid", "high", "mid", "low"], ["low", "high", "high", "mid", "mid"], ["low", "mid", "high"])
print(json.dumps({"sklearn": sklearn.__version__, "cases": cases}, indent=1))
