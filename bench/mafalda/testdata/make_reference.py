#!/usr/bin/env python3
"""Reference values for bench/mafalda from upstream's own code, run unmodified.

Usage: make_reference.py UPSTREAM_SRC_PARENT SHARED_DATA > reference.json

UPSTREAM_SRC_PARENT holds upstream's src/ (ChadiHelwe/MAFALDA @ 0df43447:
`git archive 0df43447 src | tar -x`). Its src/utils.py imports nltk and
thefuzz, which no evaluation code uses: they are stubbed. Nothing of
upstream is changed: its functions are wrapped to record what they return.

Writes:
- asserted: every precision_score / recall_score call of new_metrics.py's
  __main__ block (its asserted cases), with its spans and upstream's value;
- models: for each results file, upstream's evaluate (level 2) or
  evaluate_level_1 (level 1) means, as its CSV writer orders them;
- per_text: for two models, every per-text value evaluate computes, in the
  order it computes them (label-only then span scores, level 2, 1, 0);
- sentences: per text, the SHA-256 of the sentences process_data asks about
  (joined by "\\n"), in order;
- prompts: the SHA-256 of ALT_PROMPT[level] (read from pipelines.py with
  ast, as langchain is not installed) formatted for the first sentence of
  the first text, for levels 0, 1, 2.
"""
import ast
import hashlib
import json
import os
import sys
import textwrap
import types

up, shared = sys.argv[1], sys.argv[2]
sys.path.insert(0, up)
for m in ("nltk", "thefuzz"):
    mod = types.ModuleType(m)
    mod.fuzz = None
    sys.modules[m] = mod

import src.evaluate as ev  # noqa: E402
from src.process_docanno_data import process_data  # noqa: E402
from src.utils import read_jsonl  # noqa: E402

gold_path = os.path.join(shared, "mafalda/gold_standard_dataset.jsonl")
results = os.path.join(shared, "mafalda/upstream/results")
out = {}

# Asserted cases: new_metrics.py's definitions, then its __main__ block with
# the two scores recorded.
src = open(os.path.join(up, "src/new_metrics.py")).read()
head, main = src.split('if __name__ == "__main__":', 1)
ns = {"__name__": "new_metrics"}
exec(compile(head, "new_metrics.py", "exec"), ns)
calls = []


def spans(a):
    res = []
    for s in a.spans:
        if hasattr(s, "labels"):
            res.append({"labels": sorted(s.labels), "interval": s.interval})
        else:
            res.append({"label": s.label, "interval": s.interval})
    return res


def recording(name):
    f = ns[name]

    def g(pred, gold, *a):
        v = f(pred, gold, *a)
        calls.append({"score": name, "pred": spans(pred), "gold": spans(gold), "value": v})
        return v

    return g


for name in ("precision_score", "recall_score"):
    ns[name] = recording(name)
exec(compile(textwrap.dedent(main), "new_metrics.py", "exec"), ns)
out["asserted"] = calls

# Per-model means, and per-text values of two models.
out["models"] = {}
out["per_text"] = {}
for f in sorted(os.listdir(results)):
    if not f.endswith(".jsonl"):
        continue
    path = os.path.join(results, f)
    level = 1 if "_level_1_" in f else 2
    record = f in ("gpt-3.5_level_2_results.jsonl", "base-random_level_2_results.jsonl")
    seen = []
    full, lab = ev.text_full_task_p_r_f1, ev.text_label_only_p_r_f1
    if record:
        ev.text_full_task_p_r_f1 = lambda p, g: seen.append(("span",) + tuple(full(p, g))) or seen[-1][1:]
        ev.text_label_only_p_r_f1 = lambda p, g, n: seen.append(("label",) + tuple(lab(p, g, n))) or seen[-1][1:]
    try:
        vals = ev.evaluate(gold_path, path) if level == 2 else ev.evaluate_level_1(gold_path, path)
    finally:
        ev.text_full_task_p_r_f1, ev.text_label_only_p_r_f1 = full, lab
    out["models"][f] = list(vals)
    if record:
        out["per_text"][f] = [list(s) for s in seen]

# The sentences asked about.
data = read_jsonl(gold_path)
out["sentences"] = [hashlib.sha256("\n".join(p.keys()).encode()).hexdigest() for p in process_data(data)]

# The prompts.
tree = ast.parse(open(os.path.join(up, "src/experiments_pipelines/pipelines.py")).read())
alt = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "ALT_PROMPT")
first = next(iter(process_data(data[:1])[0].keys()))
out["prompts"] = [
    hashlib.sha256(alt[lv].format(example_input=data[0]["text"], sentence_input=first, instruction_begin="", instruction_end="").encode()).hexdigest()
    for lv in (0, 1, 2)
]
json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
