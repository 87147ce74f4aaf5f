#!/usr/bin/python3
"""Upstream's own embedding ranker on scripted embeddings, for TestEmbeddingRankerEqualsUpstream.

UKPLab/naacl2025-missciplus at commit 88f0a78, unpacked as for make_upstream.py:

    /usr/bin/python3 bench/missciplus/testdata/make_embed.py /tmp/missciplus-upstream > bench/missciplus/testdata/embed.json

(Debian: python3-numpy, python3-sklearn, python3-tqdm.)

missci.ranking.embedding_ranker.EmbeddingRanker and its CosineTextPassageScorer / BasePassageScorer
run unmodified. Stubbed: the sentence-transformers model (weights) — its encode returns the
embedding fallacylab's test server (llm/llmtest.Embedding) returns: 64 buckets of lower-cased,
punctuation-trimmed words hashed by 32-bit FNV-1a — and util.cos_sim, as numpy's cosine in
float64 (sentence-transformers computes it in float32); torch, InstructorEmbedding and
scientific_information_change are empty modules for imports of scorers not used here. Dev
split: concat on the selected passages, mean of the best 2 sentences with section titles, concat
on every passage of the study, and that again with subtask 2's --p0 (a passage stating p0, drawn
after random.seed(3), before the claim); each argument's ranking in full.
"""
import contextlib
import random
import io
import json
import os
import sys
import tempfile
import types

import numpy as np

repo = os.path.abspath(sys.argv[1])


def fake_embedding(text):
    v = np.zeros(64)
    for w in text.lower().split():
        h = 2166136261
        for c in w.strip(".,;:!?\"'()").encode("utf-8"):
            h = ((h ^ c) * 16777619) & 0xFFFFFFFF
        v[h % 64] += 1
    return v


class SentenceTransformer:
    def __init__(self, name):
        self.name = name

    def encode(self, sentences, convert_to_tensor=True):
        return np.array([fake_embedding(s) for s in sentences])


def cos_sim(a, b):
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    na = np.linalg.norm(a, axis=1, keepdims=True)
    nb = np.linalg.norm(b, axis=1, keepdims=True)
    return (a @ b.T) / np.maximum(na @ nb.T, 1e-300) * ((na @ nb.T) > 0)


st = types.ModuleType("sentence_transformers")
st.SentenceTransformer = SentenceTransformer
st.util = types.SimpleNamespace(cos_sim=cos_sim)
sys.modules["sentence_transformers"] = st
sys.modules["torch"] = types.ModuleType("torch")
sys.modules["torch"].Tensor = np.ndarray
sys.modules["InstructorEmbedding"] = types.ModuleType("InstructorEmbedding")
sys.modules["InstructorEmbedding"].INSTRUCTOR = object
sic = types.ModuleType("scientific_information_change")
sic.estimate_similarity = types.ModuleType("scientific_information_change.estimate_similarity")
sic.estimate_similarity.SimilarityEstimator = object
sys.modules["scientific_information_change"] = sic
sys.modules["scientific_information_change.estimate_similarity"] = sic.estimate_similarity
ds = types.ModuleType("datasets")
for n in ("Dataset", "Features", "Value", "Sequence", "ClassLabel"):
    setattr(ds, n, lambda *a, **k: None)
sys.modules["datasets"] = ds
sys.path.insert(0, repo)

from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.ranking.embedding_ranker import EmbeddingRanker  # noqa: E402
from missci.util.fileutil import read_jsonl  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upstream_p0 import add_p0_passage_to_claim  # noqa: E402



data = os.path.join(repo, "dataset")
work = tempfile.mkdtemp()
os.chdir(work)
instances = MappedDataLoader(data).load_raw_arguments("dev")
out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "split": "dev", "runs": []}
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    for variant, k, title, full in (("concat", None, False, False), ("mean", 2, True, False), ("concat", None, False, True)):
        ranker = EmbeddingRanker("sbert", variant, work, k, title)
        name = ranker.run(instances, full, "dev_")
        preds = list(read_jsonl(os.path.join(work, name)))
        out["runs"].append({"variant": variant, "k": k, "add_title": title, "full": full,
                            "rankings": {p["id"]: p["ranked_passages"] for p in preds},
                            "scores": {p["id"]: p["cosine_similarities"] for p in preds}})
    # subtask 2 with --p0 (run-subtask2-open.py sentence-embeddings ... <seed> --p0): seed 3
    random.seed(3)
    with_p0 = list(map(add_p0_passage_to_claim, instances))
    ranker = EmbeddingRanker("sbert", "concat", work, None, False)
    name = ranker.run(with_p0, True, "dev_p0_")
    preds = list(read_jsonl(os.path.join(work, name)))
    out["runs"].append({"variant": "concat", "k": None, "add_title": False, "full": True, "p0_seed": 3,
                        "claims": {i["id"]: i["argument"]["claim"] for i in with_p0},
                        "rankings": {p["id"]: p["ranked_passages"] for p in preds},
                        "scores": {p["id"]: p["cosine_similarities"] for p in preds}})
print(json.dumps(out, indent=1, sort_keys=True))
