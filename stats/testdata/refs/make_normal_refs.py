#!/usr/bin/python3
"""Two-sided normal tail probabilities 2·P(Z > |z|) from scipy.stats.norm.sf, for the
Wald p-values of stats.Logistic and stats.Firth far into the tail (Debian python3-scipy):

    /usr/bin/python3 stats/testdata/refs/make_normal_refs.py > stats/testdata/refs/normal_refs.json
"""
import json

import scipy
from scipy.stats import norm

zs = [0, 0.5, 1, 1.96, 3, 5, 6, 6.5, 7, 8, 8.3, 9, 10, 12, 15, 20, 25, 30, 35, 37]
print(json.dumps({"scipy": scipy.__version__, "two_sided": [[z, 2 * float(norm.sf(z))] for z in zs]}, indent=1))
