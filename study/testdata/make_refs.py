#!/usr/bin/python3
"""Reference values for the study package's statistics, from established implementations.

Run with Debian's Python (apt-get install python3-sklearn python3-statsmodels):

    /usr/bin/python3 study/testdata/make_refs.py > study/testdata/refs.json

scikit-learn: cohen_kappa_score, precision_recall_fscore_support; statsmodels: fleiss_kappa
(with aggregate_raters), proportion_confint (Wilson). Gwet's AC1 and Krippendorff's alpha have no
implementation in Debian: computed here by explicit loops from their definitions (Gwet 2008,
Krippendorff 2011), independently of the Go code.

Cases:
- c8_native: SPEC C.8 §6.2 — two annotators, 183 native items, codes A/B/N, a contingency table
  (rater 1 rows, rater 2 columns, order A, B, N) that yields the published figures: raw 86.3 %
  (158/183), three-way κ 0.74, AC1 0.82 (Q = 3), PSA_A 0.50.
- c8_validity: SPEC C.8 §6.7 — three annotators, 72 negatives: 67 rated V, V, I (valid: 2 of 3) and
  5 rated V, I, B (a tie: not valid): precision 67/72; the detector flags 30 of the 53 confirmed
  matched items: FPR 30/53 with its Wilson interval.
- judge: a judge's 0/1 labels against a human majority: precision, recall, F1, κ.
- ac1_singles: three annotators, codes A/B/N, 14 items of which 5 only one annotator answered.
  Gwet's own convention (irrCAC's gwet.ac1.raw, categ.labels = A, B, N): p_a over the items
  answered twice or more, the prevalences π over every item answered; written here a second
  time in irrCAC's matrix form (numpy) and checked against the loop. ac1_twice_only is the
  figure with π over the twice-answered items only (what fallacylab reported before #27).
"""
import json
import math

import numpy as np
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint


def ac1(ratings, q):
    """Gwet's AC1 for any raters with missing ('' ) ratings (Gwet 2008)."""
    cats = sorted({v for r in ratings for v in r if v != ""})
    pa_items, pis = [], {c: [] for c in cats}
    for r in ratings:
        vals = [v for v in r if v != ""]
        n = len(vals)
        if n >= 1:
            for c in cats:
                pis[c].append(vals.count(c) / n)
        if n >= 2:
            pa_items.append(sum(vals.count(c) * (vals.count(c) - 1) for c in cats) / (n * (n - 1)))
    pa = sum(pa_items) / len(pa_items)
    pi = {c: sum(v) / len(v) for c, v in pis.items()}
    pe = sum(p * (1 - p) for p in pi.values()) / (q - 1)
    return (pa - pe) / (1 - pe), pa


def alpha_nominal(ratings):
    """Krippendorff's alpha, nominal, by the coincidence matrix."""
    cats = sorted({v for r in ratings for v in r if v != ""})
    o = {(c, k): 0.0 for c in cats for k in cats}
    for r in ratings:
        vals = [v for v in r if v != ""]
        m = len(vals)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[(vals[i], vals[j])] += 1 / (m - 1)
    nc = {c: sum(o[(c, k)] for k in cats) for c in cats}
    n = sum(nc.values())
    do = sum(o[(c, k)] for c in cats for k in cats if c != k)
    de = sum(nc[c] * nc[k] for c in cats for k in cats if c != k)
    return 1 - (n - 1) * do / de


def psa(ratings, pos):
    num = den = 0.0
    for r in ratings:
        vals = [v for v in r if v != ""]
        if len(vals) >= 2:
            npos = vals.count(pos)
            num += npos * (npos - 1)
            den += npos * (len(vals) - 1)
    return num / den


out = {}
codes = ["A", "B", "N"]
table = [[1, 0, 0], [2, 70, 23], [0, 0, 87]]
ratings = [[codes[i], codes[j]] for i in range(3) for j in range(3) for _ in range(table[i][j])]
a = [r[0] for r in ratings]
b = [r[1] for r in ratings]
fk = fleiss_kappa(aggregate_raters(np.array([[codes.index(x) for x in r] for r in ratings]))[0], method="fleiss")
ac, pa = ac1(ratings, 3)
out["c8_native"] = {"table": table, "raw": sum(x == y for x, y in zip(a, b)) / len(a), "cohen_kappa": cohen_kappa_score(a, b),
                    "fleiss_kappa": fk, "ac1": ac, "pa": pa, "alpha": alpha_nominal(ratings), "psa_A": psa(ratings, "A")}

val = [["V", "V", "I"]] * 67 + [["V", "I", "B"]] * 5
bin_val = [["V" if v == "V" else "not V" for v in r] for r in val]
lo, hi = proportion_confint(30, 53, alpha=0.05, method="wilson")
plo, phi = proportion_confint(67, 72, alpha=0.05, method="wilson")
out["c8_validity"] = {"precision": 67 / 72, "precision_lo": plo, "precision_hi": phi, "fpr": 30 / 53, "fpr_lo": lo, "fpr_hi": hi,
                      "ac1_binary": ac1(bin_val, 2)[0], "ac1_three_way": ac1(val, 3)[0]}

human = ["1", "1", "1", "0", "0", "0", "0", "1", "0", "0", "1", "0"]
judge = ["1", "0", "1", "1", "0", "0", "0", "1", "0", "1", "1", "0"]
p, r, f, _ = precision_recall_fscore_support(human, judge, pos_label="1", average="binary")
out["judge"] = {"human": human, "judge": judge, "precision": p, "recall": r, "f1": f, "kappa": cohen_kappa_score(human, judge)}


def ac1_irrcac(ratings, categ):
    """irrCAC's gwet.ac1.raw, unweighted, in its own matrix steps (agree.mat, ri.vec, pi.vec)."""
    agree = np.array([[sum(v == c for v in r) for c in categ] for r in ratings], dtype=float)
    agree = agree[agree.sum(axis=1) > 0]  # "Exclude all subjects that are not rated by any rater."
    n, q = agree.shape
    ri = agree.sum(axis=1)
    sum_q = (agree * (agree - 1)).sum(axis=1)
    two = ri >= 2
    pa = (sum_q[two] / (ri[two] * (ri[two] - 1))).sum() / two.sum()
    pi = (agree / ri[:, None]).sum(axis=0) / n
    pe = q * (pi * (1 - pi)).sum() / (q * (q - 1))
    return (pa - pe) / (1 - pe), pa


singles = [["A", "A", "A"], ["A", "A", "B"], ["B", "B", ""], ["N", "N", "N"], ["A", "", "A"], ["N", "B", "N"],
           ["A", "A", ""], ["B", "B", "B"], ["A", "N", "A"], ["N", "", ""], ["", "N", ""], ["", "", "N"],
           ["B", "", ""], ["N", "", ""]]
ac_s, pa_s = ac1(singles, 3)
ac_m, pa_m = ac1_irrcac(singles, codes)
assert abs(ac_s - ac_m) < 1e-12 and abs(pa_s - pa_m) < 1e-12
twice = [r for r in singles if sum(v != "" for v in r) >= 2]
out["ac1_singles"] = {"ratings": singles, "ac1": ac_m, "pa": pa_m, "ac1_twice_only": ac1(twice, 3)[0]}
print(json.dumps(out, indent=1, sort_keys=True))
