#!/usr/bin/python3
"""scikit-learn reference for the built-in TF-IDF + logistic-regression detector and the default audit.

    /usr/bin/python3 bench/foils/testdata/sklearn_parity.py ../shared/data > bench/foils/testdata/sklearn_parity.json

Uses Debian's python3-sklearn (1.2.x) and python3-pandas. Loads the Sahai et al. Reddit corpus with pandas
(comment of interest = `parent`; gold = the file's type when fallacy_exists = 1 in an annotated file, else
none; split = splits.tsv full_dataset_split), fits TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True,
min_df=2) on train and LogisticRegression(C, solver="lbfgs", multi_class="multinomial", tol=1e-4,
max_iter=1000) for C in (1, 10, 100), picks C by dev accuracy (ties: the smaller C) and records, for each
variant of the corpus — "full" (splits.tsv's full_dataset_split: `classify run --corpus reddit --model
builtin:tfidf`) and "annotated" (the processed annotated dataset, annotated_dataset_split: the default
`foils audit`):
- the dev accuracy of every C, the chosen C and its iteration count;
- the chosen model's prediction for every test item in the corpus's order (with its id, <raw type>/<comment
  id>, which is not unique), its test accuracy
  and macro-F1 over the labels present in gold or predicted (sklearn's f1_score(average="macro"));
- (annotated) the prediction for every text the default `foils audit` sends to the detector (the test split and the
  released Reddit matched and wrong-scheme sets, scheme_foils/reddit_task{5,6}_final.csv, `generated`),
  keyed by the first 16 hex digits of the SHA-256 of the text with CRLF as LF (no text is stored);
- (annotated) the audit's headline figures from those predictions, computed here as SPEC.md C.1–C.5 define them:
  native FPR (test items with gold none flagged), matched FPR, wrong-scheme flag rate, type-specific
  separation Sep = mean over the 8 types of (M_τ − W_τ)·100, pooled separation, T′, T and the margin.
"""
import hashlib
import json
import os
import sys

import numpy as np
import pandas as pd
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

RAW = {"authority": "appeal to authority", "population": "appeal to majority", "natural": "appeal to nature",
       "tradition": "appeal to tradition", "worse_problems": "appeal to worse problems", "blackwhite": "false dilemma",
       "hasty_generalization": "hasty generalization", "slippery_slope": "slippery slope"}
TYPES = sorted(RAW.values())
data = sys.argv[1]
root = os.path.join(data, "reddit_fallacy")
splits = pd.read_csv(os.path.join(root, "splits.tsv"), sep="\t", keep_default_na=False)
split_of = {(r.raw_file, str(r.comment_id)): (r.full_dataset_split, r.annotated_dataset_split) for r in splits.itertuples()}
rows = []
for raw in sorted(RAW):
    for kind in ("annotated", "negative-samples"):
        f = os.path.join(root, "raw", f"{raw}_{kind}.csv")
        if kind == "annotated":
            d = pd.read_csv(f, index_col=0, keep_default_na=False)
        else:
            d = pd.read_csv(f, sep="\t", keep_default_na=False)
        base = os.path.basename(f)
        for r in d.itertuples():
            gold = RAW[raw] if kind == "annotated" and str(r.fallacy_exists) == "1" else "none"
            full, annotated = split_of[(base, str(r.comment_id))]
            rows.append((f"{raw}/{r.comment_id}", str(r.parent), gold, full, annotated))
corpus = pd.DataFrame(rows, columns=["id", "text", "gold", "full", "annotated"])
task5 = pd.read_csv(os.path.join(data, "scheme_foils", "reddit_task5_final.csv"), keep_default_na=False)
task6 = pd.read_csv(os.path.join(data, "scheme_foils", "reddit_task6_final.csv"), keep_default_na=False)


def key(text):
    return hashlib.sha256(text.replace("\r\n", "\n").encode()).hexdigest()[:16]


def variant(split_column, audit):
    df = corpus[corpus[split_column] != ""]
    tr, dv, te = (df[df[split_column] == s] for s in ("train", "dev", "test"))
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)
    Xtr = vec.fit_transform(tr.text)
    Xdv, Xte = vec.transform(dv.text), vec.transform(te.text)
    sel, iters, best = {}, {}, None
    for c in (1, 10, 100):
        m = LogisticRegression(C=c, solver="lbfgs", multi_class="multinomial", tol=1e-4, max_iter=1000).fit(Xtr, tr.gold)
        acc = float((m.predict(Xdv) == dv.gold).mean())
        sel[str(c)], iters[str(c)] = acc, int(m.n_iter_[0])
        if best is None or acc > best[0]:
            best = (acc, c, m)
    model = best[2]
    pte = model.predict(Xte)
    out = {"n_train": len(tr), "n_dev": len(dv), "n_test": len(te), "vocab": len(vec.vocabulary_),
           "selection": sel, "iterations": iters, "C": best[1],
           "test_accuracy": float((pte == te.gold).mean()), "test_macro_f1": float(f1_score(te.gold, pte, average="macro")),
           "test": [{"id": i, "pred": str(p)} for i, p in zip(te.id, pte)]}
    if not audit:
        return out

    def label(texts):
        return [str(p) for p in model.predict(vec.transform(texts))]

    pm, pw = label(task5.generated), label(task6.generated)
    out["by_text"] = {key(t): str(p) for t, p in list(zip(te.text, pte)) + list(zip(task5.generated, pm)) + list(zip(task6.generated, pw))}
    native = [p for p, g in zip(pte, te.gold) if g == "none"]
    tgt6 = [RAW[t] for t in task6.target_type]
    M = {t: np.mean([p == t for p, s in zip(pm, task5.fallacy_type) if s == t]) for t in TYPES}
    W = {t: np.mean([p == t for p, s in zip(pw, task6.source_fallacy) if s == t]) for t in TYPES}
    fig = {
        "native_fpr": float(np.mean([p != "none" for p in native])),
        "matched_fpr": float(np.mean([p != "none" for p in pm])),
        "wrong_flag": float(np.mean([p != "none" for p in pw])),
        "sep": float(np.mean([M[t] - W[t] for t in TYPES]) * 100),
        "pooled": float((np.mean([p == s for p, s in zip(pm, task5.fallacy_type)])
                         - np.mean([p == s for p, s in zip(pw, task6.source_fallacy)])) * 100),
        "t_prime": float(np.mean([p == t for p, t in zip(pw, tgt6)])),
        "t": float(np.mean([p == s for p, s in zip(pw, task6.source_fallacy)])),
    }
    fig["margin"] = (fig["t_prime"] - fig["t"]) * 100
    out["audit"] = fig
    return out


json.dump({"sklearn": sklearn.__version__, "full": variant("full", False), "annotated": variant("annotated", True)},
          sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
