#!/usr/bin/python3
"""scikit-learn reference values for detect's TF-IDF vectoriser and multinomial logistic regression.

    /usr/bin/python3 detect/testdata/make_sklearn_refs.py > detect/testdata/sklearn_refs.json

Uses Debian's python3-sklearn (1.2.x). The corpus is small and written here (no licensed data):
it covers the default token pattern's edge cases (one-character tokens, digits, underscores,
apostrophes, accents, combining marks, case) and gives a three-class problem so the fit is the
multinomial one. LogisticRegression is fitted to a tight tolerance so the coefficients are the
optimum of the objective, which the Go fit must reach too.
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

train = [
    ("Experts agree, so it must be true: Dr. Smith said so.", "authority"),
    ("The professor's word settles it; 9 out of 10 doctors agree.", "authority"),
    ("A Nobel laureate endorsed it, therefore it's correct.", "authority"),
    ("Everyone is doing it, so it can't be wrong.", "majority"),
    ("Millions of people can't be wrong about this product!", "majority"),
    ("Most voters believe it, so it is true. Everyone agrees.", "majority"),
    ("I went to the store and bought milk, eggs and bread.", "none"),
    ("The meeting is at 10_30 in room B; bring the report.", "none"),
    ("Café opens at nine; the naïve barista makes great coffee.", "none"),
    ("It rained yesterday and the roads were wet.", "none"),
    ("Scientists say so, and scientists are never wrong: trust the experts.", "authority"),
    ("Nobody disagrees; it's what all the people think, everyone does.", "majority"),
]
test = [
    "Trust me, experts and doctors agree on this.",
    "Everyone I know bought one, and so did millions of people.",
    "The café's coffee is great; bring milk.",
    "x y z",  # no known term: an all-zero row
    "Dr. Smith, a Nobel laureate, says everyone is wrong.",
]
texts = [t for t, _ in train]
labels = [l for _, l in train]

out = {"sklearn": sklearn.__version__, "train": [{"text": t, "label": l} for t, l in train], "test": test,
       "vectorizers": [], "logreg": []}
for name, kw, go in [
    ("bigram-sublinear-mindf1", dict(ngram_range=(1, 2), sublinear_tf=True, min_df=1), dict(MinN=1, MaxN=2, MinDF=1, Sublinear=True)),
    ("unigram-mindf2", dict(ngram_range=(1, 1), sublinear_tf=False, min_df=2), dict(MinN=1, MaxN=1, MinDF=2, Sublinear=False)),
]:
    vec = TfidfVectorizer(**kw)
    X = vec.fit_transform(texts)
    vocab = {term: int(i) for term, i in vec.vocabulary_.items()}
    rows = []
    for t in test + texts[:2]:
        r = vec.transform([t]).tocoo()
        order = np.argsort(r.col)
        rows.append({"text": t, "idx": [int(r.col[i]) for i in order], "val": [float(r.data[i]) for i in order]})
    out["vectorizers"].append({"name": name, "options": go, "vocab": vocab, "idf": [float(x) for x in vec.idf_],
                               "rows": rows})
    if name == "bigram-sublinear-mindf1":
        Xte = vec.transform(test)
        for C in (1.0, 10.0):
            m = LogisticRegression(C=C, multi_class="multinomial", solver="lbfgs", tol=1e-12, max_iter=100000).fit(X, labels)
            # sklearn stops at scipy's ftol (64 eps) before gtol: record how far from the optimum it is.
            P = m.predict_proba(X)
            Y = np.zeros_like(P)
            for i, lab in enumerate(labels):
                Y[i, list(m.classes_).index(lab)] = 1
            grad = ((P - Y).T @ X) / X.shape[0] + m.coef_ / (C * X.shape[0])
            out["logreg"].append({"vectorizer": name, "C": C, "classes": [str(c) for c in m.classes_],
                                  "n_iter": int(m.n_iter_[0]), "max_grad": float(np.abs(grad).max()),
                                  "coef": m.coef_.tolist(), "intercept": m.intercept_.tolist(),
                                  "proba": m.predict_proba(Xte).tolist(), "predict": [str(p) for p in m.predict(Xte)]})
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
