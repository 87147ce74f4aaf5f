#!/usr/bin/python3
"""Upstream's own subtask 3 pipeline on a scripted model and judge, for TestReconstructionRunEqualsUpstream.

UKPLab/naacl2025-missciplus at commit 88f0a78, unpacked as for make_upstream.py:

    /usr/bin/python3 bench/missciplus/testdata/make_reconstruct_run.py /tmp/missciplus-upstream > bench/missciplus/testdata/reconstruct_run.json

run_subtask_3.py's own functions run unmodified on the dev split: run_passagewise_experiments
(template reconstruct-passage/p7-passage-DLE, seed 1) and run_concat_passages_experiments
(reconstruct-concat/p1-basic-DLE, order p0-random, section titles, seed 2), then
parse_missciplus_prediction_file, map_prediction_file and evaluate_prediction_file's evaluator.
Stubbed, as they need weights or are not installable here: the model (a scripted LLM), the
premise judge (a scripted PremiseJudge), and the modules imported for other paths (torch,
transformers — whose set_seed is random.seed here, as it seeds Python's random —, datasets, peft,
trl, openai, spacy, rank_bm25, sentence_transformers, docopt, ...): empty stand-ins.

The scripted model answers each prompt from its SHA-256 (first byte b): b % 3 fallacies, each
"Fallacious Premise: premise <byte>; Applied Fallacy Class: <class>" with a class chosen by the
following bytes among the nine (and "Red Herring", which the mapper makes Other), or "No fallacy."
when b % 3 is 0. The judge matches a (generated, reference) pair when the first byte of
SHA-256(generated + "\\n" + reference) is even. The Go test's in-process server answers the same.
Kept: every prompt's SHA-256 in upstream's order with its argument, and the scores.
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
from unittest import mock

warnings.simplefilter("ignore")
repo = os.path.abspath(sys.argv[1])
for name in ("torch", "transformers", "datasets", "peft", "trl", "openai", "spacy", "rank_bm25", "sentence_transformers",
             "InstructorEmbedding", "scientific_information_change", "scientific_information_change.estimate_similarity",
             "evaluate", "docopt", "pandas"):
    sys.modules[name] = mock.MagicMock(name=name)
sys.modules["transformers"].set_seed = random.seed
sys.path.insert(0, repo)

import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("run_subtask_3", os.path.join(repo, "run_subtask_3.py"))
st3 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(st3)
from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.eval.evaluator_gen_classify_missciplus import GenClassifyEvaluatorMissciPlus  # noqa: E402
from missci.modeling.basic_llm.llm import LLM  # noqa: E402
from missci.premise_judge.premise_judge import PremiseJudge  # noqa: E402
from missci.util.directory_util import get_prediction_directory, get_raw_prompt_prediction_directory  # noqa: E402
from missci.util.fileutil import read_jsonl  # noqa: E402

CLASSES = ["Ambiguity", "Biased Sample Fallacy", "Causal Oversimplification", "Fallacy of Division/Composition",
           "Fallacy of Exclusion", "False Dilemma / Affirming the Disjunct", "False Equivalence",
           "Hasty Generalization", "Impossible Expectations", "Red Herring"]


def scripted(prompt):
    h = hashlib.sha256(prompt.encode()).digest()
    n = h[0] % 3
    if n == 0:
        return "No fallacy."
    return "\n".join(f"Fallacious Premise: premise {h[1 + i]}; Applied Fallacy Class: {CLASSES[h[2 + i] % len(CLASSES)]}" for i in range(n))


class Model(LLM):
    def prompt_with_special_tokens(self, prompt):
        return {"output": scripted(prompt)}

    def get_specs(self):
        return {"model": "scripted"}

    def specs_string(self):
        return "scripted"


class Judge(PremiseJudge):
    def __init__(self):
        pass

    def predict_instance(self, generated, reference, instance=None):
        return {"predicted": hashlib.sha256((generated + "\n" + reference).encode()).digest()[0] % 2 == 0}


work = tempfile.mkdtemp()
for d in ("dataset", "prompt_templates"):
    os.symlink(os.path.join(repo, d), os.path.join(work, d))
os.chdir(work)
instances = MappedDataLoader().load_raw_arguments("dev")
out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "split": "dev", "runs": []}
with contextlib.redirect_stdout(io.StringIO()):
    for layout, template, seed, section, order in (("passage-wise", "reconstruct-passage/p7-passage-DLE.txt", 1, False, None),
                                                   ("concat", "reconstruct-concat/p1-basic-DLE.txt", 2, True, "p0-random")):
        raw = get_raw_prompt_prediction_directory("argument-reconstruction")
        before = set(os.listdir(raw))
        if layout == "passage-wise":
            st3.run_passagewise_experiments(Model(), instances, template, section, seed, "dev")
        else:
            st3.run_concat_passages_experiments(Model(), instances, template, section, seed, "dev", order, False)
        name = (set(os.listdir(raw)) - before).pop()
        prompts = [{"argument": p.get("argument_id") or p.get("argument"), "sha256": hashlib.sha256(p["prompt"].encode()).hexdigest()}
                   for p in read_jsonl(os.path.join(raw, name))] if layout == "concat" else None
        if prompts is None:
            # passage-wise keeps no prompt: make them again from its own helper, in its order
            tpl = open(os.path.join("prompt_templates", template)).read().strip()
            prompts = []
            random.seed(seed)
            for inst in instances:
                p0s = st3.get_p0_passages(inst, add_section_title=section, use_p0_as_backup=True)
                random.shuffle(p0s)
                keys = [k for k in st3.get_sorted_passages(inst, from_full_study=False) if k != p0s[0]["passage"]]
                for k in keys + [None]:
                    ctx = st3.get_passage_text(inst["study"]["selected_passages"][k], add_section_title=section) if k else ""
                    pr = st3.make_fallacy_prompt_complete(tpl, inst["argument"]["claim"], p0s[0]["text"], ctx)
                    prompts.append({"argument": inst["id"], "sha256": hashlib.sha256(pr.encode()).hexdigest()})
            answers = [p["output"]["output"] for p in read_jsonl(os.path.join(raw, name))]
            assert [scripted_check for scripted_check in answers] is not None
        st3.parse_missciplus_prediction_file(name)
        st3.map_prediction_file(name, instances, Judge(), True)
        mapped = name.replace(".jsonl", ".mapped.jsonl")
        ev = GenClassifyEvaluatorMissciPlus(split="dev")
        scores = ev.evaluate_file(mapped, use_all_passages=False, use_only_mapped_context=False)
        preds = list(read_jsonl(os.path.join(get_prediction_directory("argument-reconstruction"), mapped)))
        out["runs"].append({"layout": layout, "template": template.replace(".txt", ""), "seed": seed, "add_section": section,
                            "order": order, "prompts": prompts, "scores": scores,
                            "alignment": {p["argument"]: p["alignment"] for p in preds}})
print(json.dumps(out, indent=1, sort_keys=True))
