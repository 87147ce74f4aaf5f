#!/usr/bin/python3
"""Upstream's own subtask 3 evaluation on crafted predictions, for TestReconstructionEvalEqualsUpstream.

UKPLab/naacl2025-missciplus at commit 88f0a78, unpacked as for make_upstream.py:

    /usr/bin/python3 bench/missciplus/testdata/make_reconstruct_eval.py /tmp/missciplus-upstream bench/missciplus/testdata

writes reconstruct_predictions.jsonl (crafted, mapped predictions in upstream's format: what
run_subtask_3.py's parse and map steps leave) and reconstruct_eval.json (what
missci.eval.evaluator_gen_classify_missciplus.GenClassifyEvaluatorMissciPlus.evaluate_file gives,
unmodified, for every combination the script's `evaluate` offers: --all or the gold passages, and
--only-mapped-context). Only the Hugging Face `datasets` import is stubbed (as make_upstream.py).

The predictions are drawn from a seeded generator (random.Random(20261205)) for every dev argument
in the passage-wise layout (a prompt per selected passage beside the p0 passage, and one with p0
alone): each prompt parsed or not, 0-3 fallacies with a class among the nine, 'Other', 'None' and
no class (None), a position rank per prompt, and an alignment of some predictions to gold
interchangeable fallacies of their class (what the premise judge would map). File names carry the
prompt version the evaluator reads from them ('st3-passage-wise_').
"""
import contextlib
import io
import json
import os
import random
import shutil
import sys
import tempfile
import types
import warnings

warnings.simplefilter("ignore")
repo = os.path.abspath(sys.argv[1])
dest = os.path.abspath(sys.argv[2])
stub = types.ModuleType("datasets")
for name in ("Dataset", "Features", "Value", "Sequence", "ClassLabel"):
    setattr(stub, name, lambda *a, **k: None)
sys.modules["datasets"] = stub
sys.path.insert(0, repo)

from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.eval.evaluator_gen_classify_missciplus import GenClassifyEvaluatorMissciPlus  # noqa: E402
from missci.util.passage_util import get_p0_passages, get_sorted_passages  # noqa: E402

CLASSES = ["Ambiguity", "Biased Sample Fallacy", "Causal Oversimplification", "Fallacy of Division/Composition",
           "Fallacy of Exclusion", "False Dilemma / Affirming the Disjunct", "False Equivalence",
           "Hasty Generalization", "Impossible Expectations"]
rng = random.Random(20261205)
work = tempfile.mkdtemp()
os.symlink(os.path.join(repo, "dataset"), os.path.join(work, "dataset"))
os.chdir(work)
instances = MappedDataLoader().load_raw_arguments("dev")

lines = []
for inst in instances:
    gold_by_class = {}
    for f in inst["argument"]["fallacies"]:
        for i in f["interchangeable_fallacies"]:
            gold_by_class.setdefault(i["class"], []).append(i["id"])
    p0 = get_p0_passages(inst, add_section_title=False, use_p0_as_backup=True)
    p0_key = p0[rng.randrange(len(p0))]["passage"] or "accurate_premise"
    others = [k for k in get_sorted_passages(inst) if k != p0_key]
    prompts, n = [], 0
    for ctx in others + [None]:
        frm = [p0_key] + ([ctx] if ctx else [])
        parsed = rng.random() < 0.85
        fallacies = []
        for rank in range(rng.randint(0, 3) if parsed else 0):
            n += 1
            r = rng.random()
            if r < 0.45 and gold_by_class:
                cls = rng.choice(sorted(gold_by_class))
            elif r < 0.85:
                cls = rng.choice(CLASSES)
            else:
                cls = rng.choice(["Other", "None", None])
            fallacies.append({"prediction_id": f"{len(prompts) + 1}-{rank + 1}", "normalized_fallacy_class": cls,
                              "fallacious_premise": f"premise {n}", "per-prompt-position-rank": rank + 1, "from": frm})
        prompts.append({"fallacies": fallacies, "from": frm, "is_parsed": parsed, "prediction_id": len(prompts) + 1,
                        "predicted_valid": not fallacies})
    alignment = {}
    for p in prompts:
        for f in p["fallacies"]:
            ids = gold_by_class.get(f["normalized_fallacy_class"], [])
            if ids and rng.random() < 0.6:
                alignment.setdefault(rng.choice(ids), []).append(f["prediction_id"])
    all_f = [f for p in prompts for f in p["fallacies"]]
    used = sorted({k for p in prompts if p["fallacies"] for k in p["from"]})
    lines.append({"argument": inst["id"], "prompt_based_predictions": prompts,
                  "all_predictions": {"fallacies": all_f, "from": used}, "alignment": alignment})

name = "st3-passage-wise__crafted.dev.jsonl"
ev = GenClassifyEvaluatorMissciPlus(split="dev")
with open(os.path.join(ev.prediction_directory, name), "w") as f:
    for line in lines:
        f.write(json.dumps(line) + "\n")
shutil.copy(os.path.join(ev.prediction_directory, name), os.path.join(dest, "reconstruct_predictions.jsonl"))
out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "version": "passage-wise", "runs": []}
with contextlib.redirect_stdout(io.StringIO()):
    for all_passages in (True, False):
        for mapped in (False, True):
            out["runs"].append({"all_passages": all_passages, "only_mapped_context": mapped,
                                "scores": ev.evaluate_file(name, all_passages, mapped)})
with open(os.path.join(dest, "reconstruct_eval.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
