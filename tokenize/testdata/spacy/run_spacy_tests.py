"""Runs spaCy's own tokenizer tests, unmodified, against the transcription
in spacy_tokenizer.py, and records every text those tests tokenise with the
tokens they got (spacy_tests.json), for the Go tokenizer's test to replay.

    python3 run_spacy_tests.py SPACY_TREE

writes ../../data/spacy_en.json (the rules fallacylab embeds), spacy_xx.json
and spacy_tests.json beside this script.

SPACY_TREE is an extracted tree of explosion/spaCy at release-v3.7.6, e.g.
    git -C spaCy archive release-v3.7.6 spacy | tar -x -C tree
The rules are dumped from it first (dump.py, with the stubs it describes),
so the tests and the rules come from one tree. spaCy itself is not
installed: its compiled parts (Vocab, Doc, Language) are what the
transcription replaces. The test files that build their own Tokenizer or
Language (tokenizer/test_tokenizer.py, test_explain.py) are not run; in the
files run, a test that needs anything but token texts, offsets and
whitespace (lexeme attributes such as like_num or norm_, other fixtures) is
reported as not applicable, with pytest's reason.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

TEST_FILES = [
    "lang/en/test_exceptions.py",
    "lang/en/test_indices.py",
    "lang/en/test_prefix_suffix_infix.py",
    "lang/en/test_punct.py",
    "lang/en/test_text.py",
    "lang/en/test_tokenizer.py",
    "tokenizer/test_exceptions.py",
    "tokenizer/test_naughty_strings.py",
    "tokenizer/test_urls.py",
    "tokenizer/test_whitespace.py",
]

PURE_MODULES = [
    "lang/char_classes.py",
    "lang/punctuation.py",
    "lang/tokenizer_exceptions.py",
    "lang/lex_attrs.py",
    "lang/en/punctuation.py",
    "lang/en/tokenizer_exceptions.py",
    "lang/en/lex_attrs.py",
]

STUB_UTIL = '''
import re
from typing import Dict, List
from .symbols import ORTH
class Errors:
    E055 = "E055 {key} {orths}"
    E056 = "E056 {key} {orths}"
'''

CONFTEST = '''
import json, os, sys
import pytest
sys.path.insert(0, %(here)r)
from spacy_tokenizer import Tokenizer

RECORD = {"en": {}, "xx": {}}

class Recording:
    def __init__(self, name, tok):
        self.name, self.tok = name, tok
    def __call__(self, text):
        doc = self.tok(text)
        RECORD[self.name][text] = [[t.text, t.idx, t.whitespace_] for t in doc]
        return doc
    def __getattr__(self, attr):
        return getattr(self.tok, attr)

@pytest.fixture(scope="session")
def en_tokenizer():
    return Recording("en", Tokenizer(%(en)r))

@pytest.fixture(scope="session")
def tokenizer():
    return Recording("xx", Tokenizer(%(xx)r))

OUTCOMES = {}

def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        reason = ""
        if report.outcome != "passed":
            reason = str(report.longrepr).strip().splitlines()[-1][:300]
        if report.skipped:
            OUTCOMES[report.nodeid] = ["skipped", reason]
        elif report.nodeid not in OUTCOMES or report.outcome != "passed":
            OUTCOMES[report.nodeid] = [report.outcome, reason]

def pytest_sessionfinish(session):
    with open(%(out)r, "w", encoding="utf-8") as f:
        json.dump({"outcomes": OUTCOMES, "texts": RECORD}, f, ensure_ascii=False)
'''


def main():
    tree = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp()
    stub = os.path.join(work, "stub", "spacy")
    for d in ["", "lang", "lang/en"]:
        os.makedirs(os.path.join(stub, d), exist_ok=True)
        open(os.path.join(stub, d, "__init__.py"), "w").close()
    for m in PURE_MODULES:
        shutil.copy(os.path.join(tree, "spacy", m), os.path.join(stub, m))
    with open(os.path.join(stub, "symbols.py"), "w") as f:
        f.write("ORTH = 65\nNORM = 67\n")
    with open(os.path.join(stub, "attrs.py"), "w") as f:
        f.write("LIKE_NUM = 17\n")
    util = open(os.path.join(tree, "spacy", "util.py"), encoding="utf-8").read()
    # update_exc, expand_exc and compile_{prefix,suffix,infix}_regex, verbatim
    parts = [STUB_UTIL]
    for name in ["update_exc", "expand_exc", "compile_prefix_regex", "compile_suffix_regex", "compile_infix_regex"]:
        start = util.index("\ndef %s(" % name)
        end = util.index("\ndef ", start + 1)
        parts.append(util[start:end])
    with open(os.path.join(stub, "util.py"), "w", encoding="utf-8") as f:
        f.write("from typing import Iterable, Union, Pattern\n" + "\n".join(parts))
    env = dict(os.environ, PYTHONPATH=os.path.join(work, "stub"))
    rules = {"en": os.path.join(HERE, "..", "..", "data", "spacy_en.json"), "xx": os.path.join(HERE, "spacy_xx.json")}
    for lang in ["en", "xx"]:
        with open(rules[lang], "w", encoding="utf-8") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "dump.py"), lang], stdout=f, env=env, check=True)
    tests = os.path.join(work, "tests")
    for t in TEST_FILES:
        dest = os.path.join(tests, t.replace("/", "_"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(os.path.join(tree, "spacy", "tests", t), dest)
    raw = os.path.join(work, "raw.json")
    with open(os.path.join(tests, "conftest.py"), "w") as f:
        f.write(CONFTEST % {"here": HERE, "en": rules["en"], "xx": rules["xx"], "out": raw})
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", tests, "-o", "python_files=*.py", tests], env=env, cwd=tests)
    res = json.load(open(raw, encoding="utf-8"))
    for k, (outcome, reason) in res["outcomes"].items():
        res["outcomes"][k] = [outcome, reason.replace(tests + os.sep, "")]
    counts = {}
    for outcome, _ in res["outcomes"].values():
        counts[outcome] = counts.get(outcome, 0) + 1
    res["counts"] = counts
    res["rules_sha256"] = {lang: hashlib.sha256(open(rules[lang], "rb").read()).hexdigest() for lang in rules}
    res["source"] = "spaCy release-v3.7.6: tests in spacy/tests/ (%s), run against spacy_tokenizer.py" % ", ".join(TEST_FILES)
    with open(os.path.join(HERE, "spacy_tests.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, ensure_ascii=False, indent=1, sort_keys=True)
    print(counts)


main()
