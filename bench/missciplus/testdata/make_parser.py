#!/usr/bin/python3
"""Upstream's own subtask 3 answer parser on crafted answers, for TestParserEqualsUpstream, and the
fallacy mapper's word lists the Go parser embeds.

UKPLab/naacl2025-missciplus at commit 88f0a78, unpacked as for make_upstream.py:

    /usr/bin/python3 bench/missciplus/testdata/make_parser.py /tmp/missciplus-upstream bench/missciplus

writes data/fallacy_mapper.json (FALLACY_DICT in its order and IGNORE_FALLACIES sorted, from
missci/output_parser/fallacy_mapper.py, unchanged) and testdata/parser.json: crafted answers (a
seeded generator over the answer shapes upstream's patterns were written for, and hand-written
edge cases) with what ArgumentReconstructionParser.parse (unmodified, with FallacyMapper) makes of
each: is_parsed, valid_logic and every fallacy's premise, generated and normalised class and rank.
"""
import json
import os
import random
import sys

repo, dest = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, repo)
from missci.output_parser.fallacy_mapper import FALLACY_DICT, IGNORE_FALLACIES, FallacyMapper  # noqa: E402
from missci.output_parser.llm_output_parser_argument_reconstruction import ArgumentReconstructionParser  # noqa: E402

with open(os.path.join(dest, "data", "fallacy_mapper.json"), "w") as f:
    json.dump({"source": "UKPLab/naacl2025-missciplus@88f0a78 missci/output_parser/fallacy_mapper.py",
               "fallacy_dict": [[k, v] for k, v in FALLACY_DICT.items()], "ignore": sorted(IGNORE_FALLACIES)}, f, indent=1)

rng = random.Random(20261205)
synonyms = [s for v in FALLACY_DICT.values() for s in v] + sorted(IGNORE_FALLACIES)[:40] + ["Appeal to Emotion", "the Texas sharpshooter", ""]
premises = ["Curcumin cures cancer in humans", "A study in mice applies to people", "\"The vaccine is 100% safe\"",
            "Correlation proves causation here", "Small samples represent everyone", "İstanbul trial results hold everywhere",
            "If it works in vitro, it works in vivo.", "Ten patients are enough", "no fallacy"]
shapes = [
    "Fallacious Premise: {p}; Applied Fallacy Class: {c}",
    "Fallacious Premise 3: {p}. Applied Fallacy Class: {c}",
    "Fallacious Premise: {p}\nApplied Fallacy Class: {c}",
    "Fallacious Premise: {p}\n\nApplied Fallacy Class: {c}",
    "fallacious premise: {p}; applied fallacy: {c}",
    "**Fallacious Premise:** {p}\n**Applied Fallacy Class:** {c}",
    "1. **Fallacious Premise**: {p}; **Applied Fallacy Class**: {c}",
    "**Fallacious Premise 2:** {p}\n**Applied Fallacy Class:** {c}",
    "Premise 1: \"{p}\"\nApplied Fallacy Class: {c}",
    "* \"{p}\"; Applied Fallacy Class: {c}",
    "1. \"{p}\" - see above; Applied fallacy class: {c}",
    "2. The first one: {p}\nApplied fallacy class: {c}",
    "1. **{c}**: {p}",
    "The fallacious premise is: {p} and the applied fallacy class is {c}",
    "3. {c}: \"{p}\".",
    "**Hidden assumption:** {p}\n**Applied fallacy class:** {c}",
    "The hidden assumption is: \"{p}\"\nIt is wrong.\nThe applied fallacy class is: {c}",
    "1. \"{p}\" is weak ({c}).",
    "Fallacious Premise: {p}\nSome reasoning here.\nMore reasoning.\nApplied Fallacy Class: {c}",
    "The fallacy class is: {c}\nand the fallacious premise is: {p}",
    "Fallacious Premise: {p} This is an example of the {c}",
]
answers = []
for _ in range(160):
    n = rng.choice([1, 1, 2, 3])
    shape = rng.choice(shapes)
    parts = [shape.format(p=rng.choice(premises), c=rng.choice(synonyms)) for _ in range(n)]
    lead = rng.choice(["", "Here is my analysis.\n\n", "Sure! ", "Fallicious Premise: "])
    answers.append(lead + rng.choice(["\n", "\n\n", "\n- "]).join(parts) + rng.choice(["", "\n", "\nI hope this helps."]))
answers += [
    "No fallacy.", "\"no fallacy\"", "The argument is valid: no fallacy is applied.",
    "Fallacious Premise: none; Applied Fallacy Class: None",
    "Fallacious Premise: The trial was small\n1. Hasty Generalization:\nit generalizes\n2. Biased Sample Fallacy:\nthe sample",
    "Fallacious Premiere: misspelt; Applied Fallacy Class: False Equivalence",
    "", "I cannot answer that.", "Applied Fallacy Class: Causal Oversimplification",
    "Fallacious Premise: \"quoted premise\"; Applied Fallacy Class: fallacy of composition and equivocation",
    "FALLACIOUS PREMISE: shouting; APPLIED FALLACY CLASS: FALSE DILEMMA",
]
parser = ArgumentReconstructionParser("crafted", FallacyMapper())
import contextlib, io  # noqa: E401,E402
cases = []
with contextlib.redirect_stdout(io.StringIO()):
    for a in answers:
        out = parser.parse({"output": {"output": a}})
        cases.append({"answer": a, "is_parsed": out["is_parsed"], "valid_logic": out["valid_logic"],
                      "fallacies": [{k: f[k] for k in ("fallacious_premise", "generated_fallacy_class", "normalized_fallacy_class", "per-prompt-position-rank")}
                                    for f in out["predicted_fallacies"]]})
with open(os.path.join(dest, "testdata", "parser.json"), "w") as f:
    json.dump({"upstream": "UKPLab/naacl2025-missciplus@88f0a78", "cases": cases}, f, indent=1, ensure_ascii=False)
