#!/usr/bin/python3
"""Upstream's own PRP sliding-window ranking on scripted answers, for TestPRPEqualsUpstream.

UKPLab/naacl2025-missciplus at commit 88f0a78, unpacked as for make_upstream.py:

    /usr/bin/python3 bench/missciplus/testdata/make_prp.py /tmp/missciplus-upstream > bench/missciplus/testdata/prp.json

missci.ranking.prp_sliding.PRPSliding and BasicPRPFiller (the 'chatgpt' prompt format) run
unmodified. Stubbed: the model (upstream's LLM class; here a scripted one, no weights), and
`transformers.set_seed`, which PRPSliding imports to seed Python's `random` (the stub calls
random.seed, as transformers does for that module). The scripted model answers from the SHA-256
of the prompt it is sent, so an answer also checks that the prompt is filled byte for byte:

    first byte % 4 == 0: "Passage B"   1: "Passage A"
                    2: "Passage A is more relevant than Passage B."   3: "Neither is relevant."

(3 names no passage: upstream keeps the order, its default False.) The Go test's in-process
server answers the same way. Runs on the dev split, template prp/qin-claim, 3 iterations:
natural order; natural order with section titles; random initial order after random.seed(1)
(as run-subtask1-llm-pairwise.py's chatgpt path). Each keeps every argument's ranking after each
iteration and Subtask1Evaluator's scores of each iteration's rankings.
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

repo = os.path.abspath(sys.argv[1])
for mod, names in (("datasets", ("Dataset", "Features", "Value", "Sequence", "ClassLabel")), ("transformers", ())):
    m = types.ModuleType(mod)
    for n in names:
        setattr(m, n, lambda *a, **k: None)
    sys.modules[mod] = m
sys.modules["transformers"].set_seed = random.seed
sys.path.insert(0, repo)

from missci.data.mapped_missci_data_loader import MappedDataLoader  # noqa: E402
from missci.eval.evaluator_subtask1 import Subtask1Evaluator  # noqa: E402
from missci.modeling.basic_llm.llm import LLM  # noqa: E402
from missci.prompt_generators.pairwise.basic_prp_filler import BasicPRPFiller  # noqa: E402
from missci.ranking.prp_sliding import PRPSliding  # noqa: E402
from missci.util.fileutil import write_jsonl  # noqa: E402

ANSWERS = ["Passage B", "Passage A", "Passage A is more relevant than Passage B.", "Neither is relevant."]


class Scripted(LLM):
    calls = 0

    def prompt(self, prompt):
        Scripted.calls += 1
        return {"output": ANSWERS[hashlib.sha256(prompt.encode()).digest()[0] % 4]}

    def get_specs(self):
        return {"model": "scripted"}


data = os.path.join(repo, "dataset")
work = tempfile.mkdtemp()
os.symlink(os.path.join(repo, "prompt_templates"), os.path.join(work, "prompt_templates"))
os.chdir(work)
instances = MappedDataLoader(data).load_raw_arguments("dev")
out = {"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "template": "qin-claim", "split": "dev", "iterations": 3, "runs": []}
with contextlib.redirect_stdout(io.StringIO()):
    for order, section in (("natural-order", False), ("natural-order", True), ("random", False)):
        Scripted.calls = 0
        prp = PRPSliding(template_filler=BasicPRPFiller("prp/qin-claim.txt", "chatgpt", add_section_title=section),
                         suffix=f"{order}-{section}", llm=Scripted(), num_iterations=3, initial_order=order, overwrite=True)
        random.seed(1)
        preds = [prp.rank_passages(instance=inst) for inst in instances]
        ev = Subtask1Evaluator(data_directory=data, split="dev", use_full_study=False)
        scores = []
        for i in range(3):
            name = f"prp-{order}-{section}-{i + 1}.jsonl"
            write_jsonl(os.path.join(ev.prediction_directory, name), [{"id": p["id"], "ranked_passages": p["ranked_passages"][i]} for p in preds])
            scores.append(ev.evaluate_file(name))
        out["runs"].append({"initial_order": order, "add_section": section, "calls": Scripted.calls,
                            "rankings": {p["id"]: p["ranked_passages"] for p in preds}, "scores": scores})
print(json.dumps(out, indent=1, sort_keys=True))
