# Makes parse_reference.json: what upstream Missci's output parsers
# (UKPLab/acl2024-missci, missci/output_parser/*.py) extract from crafted
# answers, under Python's own re and str semantics. Only the extraction is
# reproduced (the regexes, split('\n'), strip(), lower()); class-name
# normalisation is tested elsewhere. Run: python3 parse_reference.py
import json
import re

line1 = re.compile(r'^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy class: (.+)$', re.IGNORECASE)
line2 = re.compile(r'^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy: (.+)$', re.IGNORECASE)
full = re.compile(r'^fallacious premise( 3\.?\d?)?: (.+)\n+applied fallacy class: (.+)$', re.IGNORECASE | re.MULTILINE)
fallacy = re.compile(r'^fallacy: (.+)$', re.IGNORECASE)
other_keys = ["Non Sequitur", "None", "Other", "cannot determine the fallacy applied"]


def gen_cls(answer):
    lines = [x.strip() for x in answer.split('\n')]
    lines = [x for x in lines if len(x) > 0]
    lines = [x for x in lines if re.match(line1, x) or re.match(line2, x)]
    if not lines:
        return [[m.group(2), m.group(3)] for m in re.finditer(full, answer)]
    out = []
    for x in lines:
        m = re.match(line1, x) or re.match(line2, x)
        out.append([m.group(2).strip(), m.group(3).strip()])
    return out


def classify_line(answer):
    lines = [x.strip() for x in answer.split('\n')]
    lines = [x for x in lines if len(x) > 0 and re.match(fallacy, x)]
    return re.match(fallacy, lines[0]).group(1).strip() if lines else None


def other_key(answer):
    return [k for k in other_keys if k.lower() in answer.lower()]


answers = [
    "1. Fallacious Premise: A causes B; Applied Fallacy Class: False Cause.",
    "Fallacious Premise 3.\u0661: a; Applied Fallacy Class: Ambiguity",  # Arabic-Indic digit one
    "Fallacious Premise 3.\uff13: a; Applied Fallacy Class: Ambiguity",  # fullwidth three
    "Fallacious Premise 3\u0967: a; Applied Fallacy Class: Ambiguity",   # Devanagari one, no dot
    "FALLACIOUS PREM\u0130SE: a; APPLIED FALLACY CLASS: Ambiguity",      # capital I with dot
    "fallac\u0131ous premise: a; appl\u0131ed fallacy: Ambiguity",       # dotless i
    "Fallacious Premi\u017fe: a; Applied Fallacy Cla\u017f\u017f: Ambiguity",  # long s
    "\x1cFallacious Premise: a; Applied Fallacy Class: Ambiguity\x1f",   # separators Python strips
    "\u3000Fallacious Premise: a; Applied Fallacy Class: Ambiguity\u00a0",
    "Fallacious Premise: the premise\n\nApplied Fallacy Class: False Analogy",
    "FALLACIOUS PREM\u0130SE 3.\u0662: the premise\n\nAPPL\u0130ED FALLACY CLASS: Ambiguity",
    "Fallacious Premise 2: x; Applied Fallacy Class: Ambiguity",
    "\x1e\n\x1c\n",
]
classify = [
    "Because...\nFallacy: False Dilemma",
    "\x1dFALLACY: Ambiguity\x1d",
    "I cannot determine the fallacy applied here",
    "NON SEQU\u0130TUR, I would say",   # Python lowers İ to i + combining dot: no key
    "non sequitur",
]
print(json.dumps({
    "gen_cls": [{"answer": a, "found": gen_cls(a)} for a in answers],
    "classify": [{"answer": a, "line": classify_line(a), "other_keys": other_key(a)} for a in classify],
}, ensure_ascii=True, indent=1))
