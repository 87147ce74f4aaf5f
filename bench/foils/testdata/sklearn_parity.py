#!/usr/bin/python3
"""scikit-learn reference for the built-in TF-IDF + logistic-regression detector.

    /usr/bin/python3 bench/foils/testdata/sklearn_parity.py ../shared/data/reddit_fallacy > bench/foils/testdata/sklearn_parity.json

Loads the Sahai et al. Reddit corpus with pandas (comment of interest = `parent`; gold = the file's type
when fallacy_exists = 1 in an annotated file, else none; split = splits.tsv full_dataset_split), fits
TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2) on train, LogisticRegression(C, lbfgs,
multinomial, max_iter=1000) for C in (1, 10, 100), picks C by dev accuracy and reports test accuracy.
"""
import glob
import json
import os
import sys

import pandas as pd
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

RAW = {"authority": "appeal to authority", "population": "appeal to majority", "natural": "appeal to nature",
       "tradition": "appeal to tradition", "worse_problems": "appeal to worse problems", "blackwhite": "false dilemma",
       "hasty_generalization": "hasty generalization", "slippery_slope": "slippery slope"}
root = sys.argv[1]
splits = pd.read_csv(os.path.join(root, "splits.tsv"), sep="\t", keep_default_na=False)
split_of = {(r.raw_file, str(r.comment_id)): r.full_dataset_split for r in splits.itertuples()}
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
            rows.append((str(r.parent), gold, split_of[(base, str(r.comment_id))]))
df = pd.DataFrame(rows, columns=["text", "gold", "split"])
tr, dv, te = (df[df.split == s] for s in ("train", "dev", "test"))
vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)
Xtr = vec.fit_transform(tr.text)
Xdv, Xte = vec.transform(dv.text), vec.transform(te.text)
sel, best = {}, None
for c in (1, 10, 100):
    m = LogisticRegression(C=c, max_iter=1000).fit(Xtr, tr.gold)
    acc = float((m.predict(Xdv) == dv.gold).mean())
    sel[str(c)] = acc
    if best is None or acc > best[0]:
        best = (acc, c, m)
acc_te = float((best[2].predict(Xte) == te.gold).mean())
json.dump({"sklearn": sklearn.__version__, "n_train": len(tr), "n_dev": len(dv), "n_test": len(te),
           "vocab": len(vec.vocabulary_), "selection": sel, "C": best[1], "test_accuracy": acc_te}, sys.stdout, indent=1)
sys.stdout.write("\n")
