#!/usr/bin/python3
"""Upstream's own BM25 ranker (missci/ranking/bm25.py), run unmodified, for TestBM25AgainstUpstream.

UKPLab/naacl2025-missciplus at commit 88f0a78 and rank_bm25 0.2.2 (the version upstream pins),
each unpacked into a folder:

    git -C <clone> archive 88f0a78 | tar -x -C /tmp/missciplus-upstream
    git -C <clone of dorianbrown/rank_bm25> archive 0.2.2 rank_bm25.py | tar -x -C /tmp/rank_bm25
    /usr/bin/python3 bench/missciplus/testdata/make_bm25_rank.py /tmp/missciplus-upstream /tmp/rank_bm25 \
        > bench/missciplus/testdata/bm25_rank.json

Debian's python3-numpy, python3-sklearn and python3-tqdm, and two stubs:
- `datasets` (Hugging Face), as in make_upstream.py: five empty names for imports not called.
- `spacy`: spaCy cannot be installed here, so spacy.load('en_core_web_sm') returns
  tokenize/testdata/spacy/spacy_tokenizer.py's Tokenizer over the English rules fallacylab
  embeds (tokenize/data/spacy_en.json). That transcription of spaCy 3.7.6's tokenizer passes
  spaCy's own tokenizer tests (tokenize/testdata/spacy/run_spacy_tests.py); bm25.py only reads
  each token's .text. The pipeline's later components (tagger, parser, NER) do not change tokens.

Runs, as the scripts run them: run-subtask1.py bm25 [--fullstudy] for dev and test
(run_bm25_baseline with use_full_study = init_with_full_study = --fullstudy), scored by
Subtask1Evaluator; run-subtask2-open.py bm25 <seed> [--p0] for dev and test, seed 1 without
--p0 and seeds 1 and 2 with it (its run_bm25 line for line, and add_p0_passage_to_claim from
upstream_p0.py: that script cannot be imported here, its other rankers need model libraries), scored by
Subtask2EvaluatorOpen. Each run keeps the scores and the SHA-256 of the rankings
("id<TAB>p1,p2,...\\n" per line); each split keeps the SHA-256 of every passage's and claim's
lowercased tokens ("id<TAB>t1<US>t2...\\n", in the corpus order), so a tokenisation difference
shows apart from a ranking one.
"""
import contextlib
import hashlib
import io
import json
import os
import random
import sys
import tempfile
import types
import warnings

warnings.simplefilter("ignore", UserWarning)
repo = os.path.abspath(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "..", "tokenize", "testdata", "spacy"))
from spacy_tokenizer import Tokenizer  # noqa: E402

stub = types.ModuleType("datasets")
for name in ("Dataset", "Features", "Value", "Sequence", "ClassLabel"):
    setattr(stub, name, lambda *a, **k: None)
sys.modules["datasets"] = stub
english = Tokenizer(os.path.join(here, "..", "..", "..", "tokenize", "data", "spacy_en.json"))


def load(name):
    assert name == "en_core_web_sm", name
    return english


spacy = types.ModuleType("spacy")
spacy.load = load
sys.modules["spacy"] = spacy
sys.path.insert(0, os.path.abspath(sys.argv[2]))
sys.path.insert(0, repo)

from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.eval.evaluator_subtask1 import Subtask1Evaluator  # noqa: E402
from missci.eval.evaluator_subtask2_open import Subtask2EvaluatorOpen  # noqa: E402
from missci.ranking.bm25 import BM25Preprocessor, run_bm25_baseline  # noqa: E402
from missci.util.fileutil import read_jsonl  # noqa: E402
from missci.util.passage_util import get_sorted_passages  # noqa: E402
from upstream_p0 import add_p0_passage_to_claim  # noqa: E402




def run_bm25(instances, split, add_p0, random_seed, directory):
    random.seed(random_seed)
    if add_p0:
        prefix = f'{split}__add-P0__'
        instances = list(map(add_p0_passage_to_claim, instances))
    else:
        prefix = f'{split}__'
    prefix += f's{random_seed}__'
    return run_bm25_baseline(directory, instances, use_full_study=True, init_with_full_study=True, prefix=prefix)


def digest(directory, name):
    h = hashlib.sha256()
    for p in read_jsonl(os.path.join(directory, name)):
        h.update((p["id"] + "\t" + ",".join(p["ranked_passages"]) + "\n").encode())
    return h.hexdigest()


def token_digest(instances):
    pre = BM25Preprocessor()
    h, seen = hashlib.sha256(), set()
    for inst in instances:
        h.update((inst["id"] + "\t" + "\x1f".join(pre.get_tokens(inst["argument"]["claim"])) + "\n").encode())
        for key in get_sorted_passages(inst, from_full_study=True):
            if key in seen:
                continue
            seen.add(key)
            text = " ".join(inst["study"]["all_passages"][key]["sentences"])
            h.update((key + "\t" + "\x1f".join(pre.get_tokens(text)) + "\n").encode())
    return h.hexdigest()


data = os.path.join(repo, "dataset")
os.chdir(tempfile.mkdtemp())
out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "rank_bm25": "0.2.2", "runs": [], "tokens_sha256": {}}
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    for split in ("dev", "test"):
        instances = MappedDataLoader(data).load_raw_arguments(split)
        out["tokens_sha256"][split] = token_digest(instances)
        for full in (False, True):
            ev = Subtask1Evaluator(data_directory=data, use_full_study=full, split=split)
            name = run_bm25_baseline(ev.prediction_directory, instances, use_full_study=full,
                                     init_with_full_study=full, prefix=f'{split}__')
            out["runs"].append({"subtask": 1, "split": split, "full": full, "p0": False, "seed": 0,
                                "scores": ev.evaluate_file(name), "rankings_sha256": digest(ev.prediction_directory, name)})
        ev = Subtask2EvaluatorOpen(data_directory=data, split=split)
        for p0, seed in ((False, 1), (True, 1), (True, 2)):
            name = run_bm25(instances, split, p0, seed, ev.prediction_directory)
            out["runs"].append({"subtask": 2, "split": split, "full": True, "p0": p0, "seed": seed,
                                "scores": ev.evaluate_file(name), "rankings_sha256": digest(ev.prediction_directory, name)})
print(json.dumps(out, indent=1, sort_keys=True))
