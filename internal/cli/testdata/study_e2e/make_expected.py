#!/usr/bin/python3
"""Expected figures of TestStudyEndToEndEqualsPython, computed independently of fallacylab.

Run with Debian's Python (apt-get install python3-sklearn python3-statsmodels):

    /usr/bin/python3 internal/cli/testdata/study_e2e/make_expected.py > internal/cli/testdata/study_e2e/expected.json

Input: long.csv beside this script, the study's `study export --format long` (a row per
annotator, item and question answered, then the adjudicator's gold answers). The study asks
on_topic (yes 1 / no 0, positive 1), flaws (multi: none, hedge, vague; each choice measured as
a yes / no), quality (likert 1-5) and why (free text, in no figure). Decoys carry a known
on_topic answer.

What is computed, as the study's report documents it:
- decoys: per annotator, decoys answered, right, accuracy with its Wilson interval
  (statsmodels proportion_confint); an annotator below 80 % is left out of every other figure;
- agreement (the kept annotators) and agreement_with_flagged (everyone), per coded question, over
  the sampled items answered twice or more: raw agreement (mean share of agreeing pairs), Gwet's
  AC1 as irrCAC's gwet.ac1.raw (chance agreement over every item answered, Q = the scale's
  choices), Fleiss' kappa (statsmodels, items with the most ratings), Krippendorff's alpha
  (nominal, coincidence matrix, written out here: no implementation in Debian), positive specific
  agreement, and Cohen's kappa (scikit-learn) when two annotators are counted;
- pairs: raw agreement and Cohen's kappa (scikit-learn) per pair of counted annotators;
- ordinal_agreement: Krippendorff's alpha, ordinal and interval, for quality; weighted_kappa:
  scikit-learn's cohen_kappa_score(weights=linear|quadratic, labels=1..5) per pair;
- human_answers: per question and choice, the items whose human answer it is (more than half of
  the counted annotators, or the adjudicator's gold), as a share of the items with one (Wilson),
  and the items with none;
- straight_lining: an annotator giving one answer to every sampled item (10 or more).
Bootstrap intervals are not compared (another generator); Wilson intervals are.
"""
import csv
import json
import math
import os
from collections import defaultdict

import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
ANNOTATORS = ["ana", "ben", "cy"]
ADJ = "#adjudicator"
FLAWS = ["none", "hedge", "vague"]
# question id -> (choices in the study's order, positive choice or None)
QUESTIONS = {"on_topic": (["1", "0"], "1")}
for f in FLAWS:
    QUESTIONS["flaws=" + f] = (["1", "0"], "1")
QUESTIONS["quality"] = (["1", "2", "3", "4", "5"], None)

rows = list(csv.DictReader(open(os.path.join(HERE, "long.csv"), newline="")))
answers = defaultdict(dict)  # (who, item_key) -> question -> answer
decoy, known, order = {}, {}, []
for r in rows:
    k = r["item_key"]
    if k not in decoy:
        order.append(k)
    decoy[k] = r["decoy"] == "true"
    if r["known"]:
        known.setdefault(k, {})[r["question"]] = r["known"]
    a = answers[(r["annotator"], k)]
    if r["question"] == "flaws":
        picks = r["answer"].split(",")
        for f in FLAWS:
            a["flaws=" + f] = "1" if f in picks else "0"
    a[r["question"]] = r["answer"]
items = [k for k in order if not decoy[k]]


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return [k / n, float(lo), float(hi)]


out = {"tables": {}}
dec = {}
left_out = []
for who in ANNOTATORS:
    n = right = 0
    for k in order:
        if decoy[k] and (who, k) in answers:
            n += 1
            right += all(answers[(who, k)].get(q) == v for q, v in known[k].items())
    acc = wilson(right, n)
    dec[who] = [n, right, acc]
    if acc[0] < 0.8:
        left_out.append(who)
out["tables"]["decoys"] = dec
out["left_out"] = left_out
kept = [w for w in ANNOTATORS if w not in left_out]
out["adjudicated"] = sum(1 for k in items if (ADJ, k) in answers)


def ratings_of(who, q):
    out = []
    for k in items:
        r = [answers.get((w, k), {}).get(q, "") for w in who]
        if any(r):
            out.append(r)
    return out


def ac1_irrcac(ratings, categ):
    agree = np.array([[sum(v == c for v in r) for c in categ] for r in ratings], dtype=float)
    agree = agree[agree.sum(axis=1) > 0]
    n, q = agree.shape
    ri = agree.sum(axis=1)
    two = ri >= 2
    pa = ((agree * (agree - 1)).sum(axis=1)[two] / (ri[two] * (ri[two] - 1))).sum() / two.sum()
    pi = (agree / ri[:, None]).sum(axis=0) / n
    pe = (pi * (1 - pi)).sum() / (q - 1)
    return (pa - pe) / (1 - pe), pa


def alpha(ratings, level):
    units = [[v for v in r if v != ""] for r in ratings]
    units = [u for u in units if len(u) >= 2]
    cats = sorted({v for u in units for v in u}, key=lambda v: float(v) if level != "nominal" else v)
    o = defaultdict(float)
    for u in units:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[(u[i], u[j])] += 1 / (m - 1)
    nc = {c: sum(o[(c, k)] for k in cats) for c in cats}
    n = sum(nc.values())

    def d2(c, k):
        if level == "nominal":
            return 0.0 if c == k else 1.0
        if level == "interval":
            return (float(c) - float(k)) ** 2
        lo, hi = sorted([cats.index(c), cats.index(k)])
        return (sum(nc[cats[g]] for g in range(lo, hi + 1)) - (nc[c] + nc[k]) / 2) ** 2

    do = sum(o[(c, k)] * d2(c, k) for c in cats for k in cats)
    de = sum(nc[c] * nc[k] * d2(c, k) for c in cats for k in cats)
    return 1 - (n - 1) * do / de


def agreement(who):
    table = {}
    for q, (choices, pos) in QUESTIONS.items():
        rs = ratings_of(who, q)
        multi = [r for r in rs if sum(v != "" for v in r) >= 2]
        ac, pa = ac1_irrcac(rs, choices)
        most = max(sum(v != "" for v in r) for r in multi)
        full = [[choices.index(v) for v in r if v != ""] for r in multi if sum(v != "" for v in r) == most]
        fk = fleiss_kappa(aggregate_raters(np.array(full))[0], method="fleiss")
        psa = None
        if pos is not None:
            num = den = 0.0
            for r in multi:
                vals = [v for v in r if v != ""]
                npos = vals.count(pos)
                num += npos * (npos - 1)
                den += npos * (len(vals) - 1)
            psa = num / den
        ck = None
        if len(who) == 2:
            pairs = [r for r in multi]
            ck = float(cohen_kappa_score([r[0] for r in pairs], [r[1] for r in pairs]))
        table[q] = [len(multi), pa, ac, fk, alpha(multi, "nominal"), psa, ck]
    table["why"] = [0, None, None, None, None, None, None]  # free text: in no agreement
    return table


def pairs(who):
    table = {}
    for q in QUESTIONS:
        for i in range(len(who)):
            for j in range(i + 1, len(who)):
                a, b = [], []
                for k in items:
                    x, y = answers.get((who[i], k), {}).get(q, ""), answers.get((who[j], k), {}).get(q, "")
                    if x and y:
                        a.append(x)
                        b.append(y)
                raw = sum(x == y for x, y in zip(a, b)) / len(a)
                table[q + "|" + who[i] + " · " + who[j]] = [len(a), raw, float(cohen_kappa_score(a, b))]
    return table


def ordinal(who):
    rs = [r for r in ratings_of(who, "quality") if sum(v != "" for v in r) >= 2]
    return {"quality": [len(rs), alpha(rs, "ordinal"), alpha(rs, "interval")]}


def weighted(who):
    table = {}
    for i in range(len(who)):
        for j in range(i + 1, len(who)):
            a = [answers[(who[i], k)]["quality"] for k in items]
            b = [answers[(who[j], k)]["quality"] for k in items]
            table["quality|" + who[i] + " · " + who[j]] = [len(a)] + [
                float(cohen_kappa_score(a, b, labels=["1", "2", "3", "4", "5"], weights=w)) for w in ("linear", "quadratic")]
    return table


LABELS = {"on_topic": {"1": "yes", "0": "no"}, "quality": {str(i): str(i) for i in range(1, 6)}}
LABELS["quality"]["1"] = "1 — poor"
LABELS["quality"]["5"] = "5 — excellent"
for f in FLAWS:
    LABELS["flaws=" + f] = {"1": "yes", "0": "no"}


def human(who):
    table = {}
    for q, (choices, _) in QUESTIONS.items():
        count, decided, open_, adj = defaultdict(int), 0, 0, 0
        for k in items:
            vals = [answers.get((w, k), {}).get(q, "") for w in who]
            vals = [v for v in vals if v]
            gold = answers.get((ADJ, k), {}).get(q, "")
            top = [c for c in set(vals) if 2 * vals.count(c) > len(vals)]
            if gold:
                adj += 1
            if gold or top:
                count[gold or top[0]] += 1
                decided += 1
            elif vals:
                open_ += 1
        for c in choices:
            table[q + "|" + LABELS[q][c]] = [count[c], wilson(count[c], decided)]
        note = "no majority (a tie)" + (f"; {adj} items adjudicated are counted above" if adj else "")
        table[q + "|" + note] = [open_, None]
    return table


out["tables"]["agreement"] = agreement(kept)
out["tables"]["agreement_with_flagged"] = agreement(ANNOTATORS)
out["tables"]["pairs"] = pairs(kept)
out["tables"]["pairs_with_flagged"] = pairs(ANNOTATORS)
out["tables"]["ordinal_agreement"] = ordinal(kept)
out["tables"]["ordinal_agreement_with_flagged"] = ordinal(ANNOTATORS)
out["tables"]["weighted_kappa"] = weighted(kept)
out["tables"]["weighted_kappa_with_flagged"] = weighted(ANNOTATORS)
out["tables"]["human_answers"] = human(kept)
out["tables"]["human_answers_with_flagged"] = human(ANNOTATORS)
for row in out["tables"]["agreement_with_flagged"].values():
    row[6] = None  # Cohen's kappa: more than two annotators (see the pairs)

straight = {}
for who in ANNOTATORS:
    flagged = False
    for q in ["on_topic", "flaws", "quality"]:
        vals = [answers[(who, k)][q] for k in items if (who, k) in answers]
        flagged = flagged or (len(vals) >= 10 and len(set(vals)) == 1)
    straight[who] = flagged
out["straight_lining"] = straight


def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


print(json.dumps(clean(out), indent=1, sort_keys=True))
