#!/usr/bin/python3
"""rank_bm25 0.2.2's BM25Okapi (the version upstream's requirements pin), run unmodified on seeded
token corpora, for TestBM25OkapiEqualsRankBM25:

    git -C <clone of dorianbrown/rank_bm25> archive 0.2.2 rank_bm25.py | tar -x -C /tmp/rank_bm25
    /usr/bin/python3 bench/missciplus/testdata/make_bm25.py /tmp/rank_bm25 > bench/missciplus/testdata/bm25.json

Corpora of 1 to 40 documents drawn from a small vocabulary (so that some words are in more than
half the documents and get the ε floor), empty documents included, and queries with repeated and
unknown words.
"""
import json
import random
import sys

sys.path.insert(0, sys.argv[1])
from rank_bm25 import BM25Okapi  # noqa: E402

rng = random.Random(20261205)
vocab = ["the", "of", "curcumin", "myeloma", "patients", "study", "vaccine", "mice", "dose", "trial", "p", "<", "0.05", "(", ")", "ç"]
cases = []
for n in (1, 2, 3, 7, 20, 40):
    corpus = [[rng.choice(vocab[: rng.randint(3, len(vocab))]) for _ in range(rng.randint(0 if n > 2 else 1, 30))] for _ in range(n)]
    bm = BM25Okapi(corpus)
    queries = [[rng.choice(vocab + ["unknown"]) for _ in range(rng.randint(1, 8))] for _ in range(4)]
    cases.append({"corpus": corpus, "queries": queries, "scores": [[float(x) for x in bm.get_scores(q)] for q in queries]})
print(json.dumps({"rank_bm25": "0.2.2", "cases": cases}))
