#!/usr/bin/python3
"""Reference values for the stats package, computed by established implementations.

Run with Debian's Python and packages (apt-get install python3-scipy python3-sklearn
python3-statsmodels python3-pandas):

    /usr/bin/python3 stats/testdata/refs/make_refs.py > stats/testdata/refs/refs.json

Sources: statsmodels (proportion_confint, fleiss_kappa, mcnemar, Logit), scikit-learn
(cohen_kappa_score, precision_recall_fscore_support, confusion_matrix, accuracy_score), scipy
(chi2_contingency, fisher_exact, pearsonr, spearmanr, optimize), numpy/pandas (quantile, std,
describe). Gwet's AC1 and Krippendorff's alpha have no implementation in Debian: they are computed
here from their published definitions (Gwet 2008; Krippendorff 2011) by explicit loops, independent
of the Go code, and anchored to the published values of Krippendorff's canonical example. Firth
regression has none either: it is computed by maximising the penalised log-likelihood with
scipy.optimize and polishing the root of its gradient (the modified score) with scipy.optimize.root.
NaN is written as the string "NaN".
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import scipy
import sklearn
import statsmodels
from scipy import optimize, stats
from sklearn import metrics
from statsmodels.stats import contingency_tables, inter_rater, proportion
import statsmodels.api as sm

rng = np.random.default_rng(20261130)


def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return "NaN" if math.isnan(x) else float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    return x


refs = {"versions": {"numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__,
                     "statsmodels": statsmodels.__version__, "pandas": pd.__version__}}

# --- proportions -------------------------------------------------------------------------------
props = []
for k, n in [(7, 13), (31, 40), (0, 10), (10, 10), (1, 1000), (500, 1000), (30, 53), (3, 738), (266, 655)]:
    for level in (0.95, 0.90):
        for method in ("wilson", "beta", "agresti_coull"):
            lo, hi = proportion.proportion_confint(k, n, alpha=1 - level, method=method)
            props.append({"k": k, "n": n, "level": level, "method": method, "lo": lo, "hi": hi})
refs["proportions"] = props
refs["cohens_h"] = [{"p1": p1, "p2": p2, "h": 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))}
                    for p1, p2 in [(0.589, 0.166), (0.0, 1.0), (0.5, 0.5), (0.05, 0.25)]]

# --- descriptives ------------------------------------------------------------------------------
desc = []
for size in (1, 2, 5, 37, 200):
    x = rng.normal(10, 3, size).round(3)
    qs = [0, 0.025, 0.1, 0.25, 0.5, 0.75, 0.975, 1]
    d = pd.Series(x).describe()
    desc.append({"x": x, "mean": float(np.mean(x)), "sd0": float(np.std(x, ddof=0)),
                 "sd1": float(np.std(x, ddof=1)) if size > 1 else float("nan"),
                 "q": qs, "quantiles": [float(np.quantile(x, q)) for q in qs],
                 "describe": [float(d[k]) for k in ("count", "mean", "std", "min", "25%", "50%", "75%", "max")]})
refs["descriptives"] = desc

# --- agreement ---------------------------------------------------------------------------------
def ac1(items, q):
    """Gwet (2008) AC1 with missing ratings: items is a list of lists of labels (None = missing)."""
    cats = sorted({v for it in items for v in it if v is not None})
    pa_sum, pa_n, pi = 0.0, 0, {c: 0.0 for c in cats}
    rated = 0
    for it in items:
        vals = [v for v in it if v is not None]
        r = len(vals)
        if r >= 1:
            rated += 1
            for c in cats:
                pi[c] += vals.count(c) / r
        if r >= 2:
            pa_n += 1
            pa_sum += sum(vals.count(c) * (vals.count(c) - 1) for c in cats) / (r * (r - 1))
    pa = pa_sum / pa_n
    pe = sum((pi[c] / rated) * (1 - pi[c] / rated) for c in cats) / (q - 1)
    return (pa - pe) / (1 - pe), pa, pe


def kappa_case(name, a, b, q):
    k = metrics.cohen_kappa_score(a, b)
    items = [[x, y] for x, y in zip(a, b)]
    ac, pa, pe = ac1(items, q)
    agg, _ = inter_rater.aggregate_raters(np.array([[str(x), str(y)] for x, y in zip(a, b)]))
    return {"name": name, "a": list(map(str, a)), "b": list(map(str, b)), "q": q, "kappa": k, "ac1": ac,
            "ac1_pa": pa, "ac1_pe": pe, "fleiss": inter_rater.fleiss_kappa(agg, method="fleiss")}


kap = []
a = rng.integers(0, 3, 150)
b = np.where(rng.random(150) < 0.7, a, rng.integers(0, 3, 150))
kap.append(kappa_case("three_class_150", a, b, 3))
# DeflectBench's soft-refusal shape: prevalence about 0.05, kappa low, AC1 high.
a = [1] * 50 + [1] * 60 + [0] * 60 + [0] * 1830
b = [1] * 50 + [0] * 60 + [1] * 60 + [0] * 1830
kap.append(kappa_case("binary_low_prevalence_2000", a, b, 2))
a = rng.integers(0, 2, 40)
b = np.where(rng.random(40) < 0.85, a, 1 - a)
kap.append(kappa_case("binary_40_q3", a, b, 3))
refs["kappa"] = kap
refs["kappa_undefined"] = {"a": ["x"] * 5, "b": ["x"] * 5, "kappa": metrics.cohen_kappa_score(["x"] * 5, ["x"] * 5)}

# Three raters with missing ratings (AC1) and complete (Fleiss).
items3 = []
for _ in range(60):
    truth = rng.integers(0, 3)
    row = [str(truth) if rng.random() < 0.75 else str(rng.integers(0, 3)) for _ in range(3)]
    items3.append(row)
agg, _ = inter_rater.aggregate_raters(np.array(items3))
missing = [[v if rng.random() > 0.15 else None for v in row] for row in items3]
refs["multi_rater"] = {"complete": items3, "fleiss": inter_rater.fleiss_kappa(agg, method="fleiss"),
                       "ac1_complete_q3": ac1(items3, 3)[0], "ac1_complete_q4": ac1(items3, 4)[0],
                       "missing": [[v if v is not None else "" for v in row] for row in missing],
                       "ac1_missing_q3": ac1(missing, 3)[0]}


def kripp(units, level):
    """Krippendorff (2011) alpha from the coincidence matrix, by explicit pair loops."""
    units = [[v for v in u if v is not None] for u in units]
    units = [u for u in units if len(u) >= 2]
    vals = sorted({v for u in units for v in u})
    ix = {v: i for i, v in enumerate(vals)}
    V = len(vals)
    o = np.zeros((V, V))
    for u in units:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[ix[u[i]], ix[u[j]]] += 1 / (m - 1)
    nc = o.sum(axis=1)
    n = nc.sum()

    def d2(c, k):
        if level == "nominal":
            return 0.0 if c == k else 1.0
        if level == "interval":
            return (vals[c] - vals[k]) ** 2
        if level == "ratio":
            return ((vals[c] - vals[k]) / (vals[c] + vals[k])) ** 2
        lo, hi = min(c, k), max(c, k)
        return (sum(nc[lo:hi + 1]) - (nc[c] + nc[k]) / 2) ** 2

    do = sum(o[c, k] * d2(c, k) for c in range(V) for k in range(V))
    de = sum(nc[c] * nc[k] * d2(c, k) for c in range(V) for k in range(V))
    return 1 - (n - 1) * do / de


N = None
canon = [  # Krippendorff (2011), 4 coders x 12 units; columns are units
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
units = [[canon[c][u] for c in range(4)] for u in range(12)]
refs["krippendorff"] = {"units": [[("NaN" if v is None else v) for v in u] for u in units],
                        "published": {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797},
                        **{lvl: kripp(units, lvl) for lvl in ("nominal", "ordinal", "interval", "ratio")}}

# --- association -------------------------------------------------------------------------------
chis = []
for name, t in [("t2x2", [[12, 5], [7, 19]]), ("t4x5", rng.integers(0, 60, (4, 5)).tolist()),
                ("t3x3", [[30, 2, 8], [1, 40, 5], [9, 3, 22]])]:
    st, p, dof, exp = stats.chi2_contingency(np.array(t), correction=False)
    chis.append({"name": name, "table": t, "yates": False, "stat": st, "p": p, "df": dof, "expected": exp})
st, p, dof, exp = stats.chi2_contingency(np.array([[12, 5], [7, 19]]), correction=True)
chis.append({"name": "t2x2_yates", "table": [[12, 5], [7, 19]], "yates": True, "stat": st, "p": p, "df": dof, "expected": exp})
zero = [[10, 0, 5, 7], [3, 0, 9, 2], [6, 0, 1, 8]]
reduced = np.array(zero)[:, [0, 2, 3]]
st, p, dof, exp = stats.chi2_contingency(reduced, correction=False)
chis.append({"name": "zero_column_dropped", "table": zero, "yates": False, "stat": st, "p": p, "df": dof, "expected": exp})
refs["chi2"] = chis

fish = []
for t in ([[8, 2], [1, 5]], [[266, 389], [3, 735]], [[0, 5], [5, 0]], [[3, 3], [3, 3]], [[10, 20], [30, 40]], [[1, 9], [11, 3]]):
    oratio, p = stats.fisher_exact(t, alternative="two-sided")
    fish.append({"table": t, "odds_ratio": oratio, "p": p})
refs["fisher"] = fish

mcn = []
for b_, c_ in [(10, 3), (25, 30), (0, 6), (1, 1), (40, 12)]:
    t = [[50, b_], [c_, 60]]
    ex = contingency_tables.mcnemar(t, exact=True)
    cc = contingency_tables.mcnemar(t, exact=False, correction=True)
    nc = contingency_tables.mcnemar(t, exact=False, correction=False)
    mcn.append({"b": b_, "c": c_, "exact_p": ex.pvalue, "exact_stat": ex.statistic, "cc_stat": cc.statistic,
                "cc_p": cc.pvalue, "nocc_stat": nc.statistic, "nocc_p": nc.pvalue})
refs["mcnemar"] = mcn

cors = []
for n, rho in [(10, 0.5), (80, 0.1), (1200, 0.68), (30, -0.9)]:
    x = rng.normal(size=n)
    y = rho * x + math.sqrt(1 - rho * rho) * rng.normal(size=n)
    x, y = x.round(4), y.round(4)
    pr = stats.pearsonr(x, y)
    sr = stats.spearmanr(x, y)
    cors.append({"x": x, "y": y, "pearson_r": pr[0], "pearson_p": pr[1], "spearman_r": sr[0], "spearman_p": sr[1]})
x = np.repeat(np.arange(0, 1.01, 0.2), 7)[:40]
y = (x + rng.normal(0, 0.3, 40) > 0.5) * 0.2 + np.repeat(np.arange(5), 8) * 0.2
pr, sr = stats.pearsonr(x, y), stats.spearmanr(x, y)
cors.append({"x": x, "y": y, "pearson_r": pr[0], "pearson_p": pr[1], "spearman_r": sr[0], "spearman_p": sr[1]})
refs["correlation"] = cors

# --- regression --------------------------------------------------------------------------------
n = 300
X = np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n), rng.normal(60, 15, n).round(1)])
eta = -0.5 + 0.8 * X[:, 1] + 1.2 * X[:, 2] - 0.01 * X[:, 3]
y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
fit = sm.Logit(y, X).fit(disp=0, tol=1e-12, maxiter=200, method="newton")
refs["logistic"] = {"X": X, "y": y, "coef": fit.params, "se": fit.bse, "p": fit.pvalues, "llf": fit.llf}


def firth_ll(beta, X, y):
    eta = X @ beta
    ll = np.sum(y * -np.logaddexp(0, -eta) + (1 - y) * -np.logaddexp(0, eta))
    p = 1 / (1 + np.exp(-eta))
    w = p * (1 - p)
    sign, logdet = np.linalg.slogdet(X.T @ (w[:, None] * X))
    return ll + 0.5 * logdet


def firth_score(beta, X, y):
    p = 1 / (1 + np.exp(-(X @ beta)))
    w = p * (1 - p)
    inv = np.linalg.inv(X.T @ (w[:, None] * X))
    h = w * np.einsum("ij,jk,ik->i", X, inv, X)
    return X.T @ (y - p + h * (0.5 - p))


def firth_fit(X, y, fixed=None):
    """Maximise l* over the free coefficients (fixed: index held at 0), penalty from the full X."""
    k = X.shape[1]
    free = [j for j in range(k) if j != fixed]

    def full(b):
        beta = np.zeros(k)
        beta[free] = b
        return beta

    res = optimize.minimize(lambda b: -firth_ll(full(b), X, y), np.zeros(len(free)),
                            jac=lambda b: -firth_score(full(b), X, y)[free], method="BFGS",
                            options={"gtol": 1e-10, "maxiter": 10000})
    root = optimize.root(lambda b: firth_score(full(b), X, y)[free], res.x, method="hybr", tol=1e-14)
    beta = full(root.x)
    return beta, firth_ll(beta, X, y)


def firth_case(name, X, y):
    beta, ll = firth_fit(X, y)
    p = 1 / (1 + np.exp(-(X @ beta)))
    w = p * (1 - p)
    se = np.sqrt(np.diag(np.linalg.inv(X.T @ (w[:, None] * X))))
    wald = 2 * stats.norm.sf(np.abs(beta / se))
    plr = []
    for j in range(X.shape[1]):
        _, ll0 = firth_fit(X, y, fixed=j)
        plr.append(stats.chi2.sf(max(0.0, 2 * (ll - ll0)), 1))
    return {"name": name, "X": X, "y": y, "coef": beta, "se": se, "p_wald": wald, "p_plr": plr, "loglik": ll}


firths = [firth_case("random_300", X, y)]
# The Scheme Foils case: 266/655 matched positives vs 3/738 wrong-scheme, with a readability covariate.
cond = np.r_[np.ones(655), np.zeros(738)]
yy = np.r_[np.ones(266), np.zeros(389), np.ones(3), np.zeros(735)]
read = rng.normal(60, 12, 1393).round(1)
firths.append(firth_case("scheme_foils_with_readability", np.column_stack([np.ones(1393), cond, read]), yy))
firths.append(firth_case("scheme_foils_2x2", np.column_stack([np.ones(1393), cond]), yy))
# Perfect separation: every x > 0 is a positive.
xs = np.r_[np.linspace(-2, -0.1, 15), np.linspace(0.1, 2, 15)]
firths.append(firth_case("perfect_separation", np.column_stack([np.ones(30), xs]), (xs > 0).astype(float)))
refs["firth"] = firths

# --- classification ----------------------------------------------------------------------------
labels = ["ad_hominem", "authority", "none", "red_herring", "slippery_slope"]
yt = rng.choice(labels + ["other"], 200, p=[0.2, 0.2, 0.3, 0.15, 0.1, 0.05])
yp = np.where(rng.random(200) < 0.6, yt, rng.choice(labels, 200))
cls = {"y_true": yt, "y_pred": yp, "labels": labels, "accuracy": metrics.accuracy_score(yt, yp),
       "confusion": metrics.confusion_matrix(yt, yp, labels=labels)}
p, r, f, s = metrics.precision_recall_fscore_support(yt, yp, labels=labels, zero_division=0)
cls["per_class"] = {"precision": p, "recall": r, "f1": f, "support": s}
for avg in ("micro", "macro", "weighted"):
    p, r, f, _ = metrics.precision_recall_fscore_support(yt, yp, labels=labels, average=avg, zero_division=0)
    cls[avg] = [p, r, f]
refs["classification"] = cls

from sklearn.preprocessing import MultiLabelBinarizer
mlabels = ["ad_hominem", "appeal_to_emotion", "causal_oversimplification", "false_equivalence", "hasty_generalization"]
yt_sets = [sorted(set(rng.choice(mlabels, rng.integers(1, 3)))) for _ in range(80)]
yp_sets = []
for s_ in yt_sets:
    pred = [l for l in s_ if rng.random() < 0.6] + ([rng.choice(mlabels)] if rng.random() < 0.5 else [])
    yp_sets.append(sorted(set(pred)))
yp_sets[3] = []
mlb = MultiLabelBinarizer(classes=mlabels)
T, P = mlb.fit_transform(yt_sets), mlb.transform(yp_sets)
ml = {"y_true": yt_sets, "y_pred": yp_sets, "labels": mlabels}
p, r, f, s = metrics.precision_recall_fscore_support(T, P, zero_division=0)
ml["per_class"] = {"precision": p, "recall": r, "f1": f, "support": s}
for avg in ("micro", "macro", "weighted", "samples"):
    p, r, f, _ = metrics.precision_recall_fscore_support(T, P, average=avg, zero_division=0)
    ml[avg] = [p, r, f]
refs["multilabel"] = ml

json.dump(clean(refs), sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
