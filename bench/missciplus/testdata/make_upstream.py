#!/usr/bin/python3
"""Upstream's own MissciPlus baselines and evaluation, run unmodified, for TestUpstreamExact.

UKPLab/naacl2025-missciplus at commit 88f0a78 (Apache-2.0), unpacked into a folder:

    git -C <clone> archive 88f0a78 | tar -x -C /tmp/missciplus-upstream
    /usr/bin/python3 bench/missciplus/testdata/make_upstream.py /tmp/missciplus-upstream > bench/missciplus/testdata/upstream.json

Debian's python3-numpy and python3-sklearn are all it needs, but for one stub: upstream's
missci/data/mapped_missci_data_loader.py imports Hugging Face `datasets` at its top (not in
Debian, and not reachable here) for loaders this script does not call; load_raw_arguments, which
the evaluators use, only reads the JSONL. The stub gives that import five empty names and nothing
else. No GPU or weights are involved in these runs.

For each split (dev, test): subtask 1 (closed: selected passages; open: --fullstudy) with
run_ordered_baseline and run_random_baseline for seeds 1-5 (as run-subtask1.py), scored by
Subtask1Evaluator.evaluate_file; subtask 2 open with the same baselines on every passage (as
run-subtask2-open.py), scored by Subtask2EvaluatorOpen.evaluate_file. Each entry keeps the
evaluator's scores and the SHA-256 of the rankings the baseline wrote ("id<TAB>p1,p2,...\\n" per
line, in file order), so the Go rankings are checked passage for passage, not only by their means.
"""
import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile
import types
import warnings

# scikit-learn warns of every argument without a fallacy passage (its AP is -0.0, as upstream's)
warnings.simplefilter("ignore", UserWarning)
repo = os.path.abspath(sys.argv[1])
stub = types.ModuleType("datasets")
for name in ("Dataset", "Features", "Value", "Sequence", "ClassLabel"):
    setattr(stub, name, lambda *a, **k: None)
sys.modules["datasets"] = stub
sys.path.insert(0, repo)

from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.eval.evaluator_subtask1 import Subtask1Evaluator  # noqa: E402
from missci.eval.evaluator_subtask2_open import Subtask2EvaluatorOpen  # noqa: E402
from missci.ranking.naive_baselines import run_ordered_baseline, run_random_baseline  # noqa: E402
from missci.util.fileutil import read_jsonl  # noqa: E402

data = os.path.join(repo, "dataset")
os.chdir(tempfile.mkdtemp())  # upstream writes ./predictions/...


def digest(directory, name):
    h = hashlib.sha256()
    for p in read_jsonl(os.path.join(directory, name)):
        h.update((p["id"] + "\t" + ",".join(p["ranked_passages"]) + "\n").encode())
    return h.hexdigest()


out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "runs": []}
with contextlib.redirect_stdout(io.StringIO()):
    for split in ("dev", "test"):
        instances = MappedDataLoader(data).load_raw_arguments(split)
        for full in (False, True):
            ev = Subtask1Evaluator(data_directory=data, use_full_study=full, split=split)
            files = [("ordered", 0, run_ordered_baseline(ev.prediction_directory, instances, full, f"{split}_"))]
            files += [("random", s, run_random_baseline(ev.prediction_directory, instances, s, full, f"{split}_")) for s in range(1, 6)]
            for ranker, seed, name in files:
                scores = ev.evaluate_file(name)
                out["runs"].append({"subtask": 1, "split": split, "full": full, "ranker": ranker, "seed": seed,
                                    "scores": scores, "rankings_sha256": digest(ev.prediction_directory, name)})
        ev = Subtask2EvaluatorOpen(data_directory=data, split=split)
        files = [("ordered", 0, run_ordered_baseline(ev.prediction_directory, instances, True, f"{split}_"))]
        files += [("random", s, run_random_baseline(ev.prediction_directory, instances, s, True, f"{split}_")) for s in range(1, 6)]
        for ranker, seed, name in files:
            scores = ev.evaluate_file(name)
            out["runs"].append({"subtask": 2, "split": split, "full": True, "ranker": ranker, "seed": seed,
                                "scores": scores, "rankings_sha256": digest(ev.prediction_directory, name)})
print(json.dumps(out, indent=1, sort_keys=True))
