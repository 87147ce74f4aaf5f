"""Writes spacy_en.json (argument "en") or spacy_xx.json ("xx") to standard
output: the rules of spaCy's English tokenizer, as en_core_web_sm 3.7
serialises them, or of its language-neutral one (Tokenizer.to_bytes): the prefix, suffix
and infix expressions (built as spacy.util.compile_*_regex builds them), the
URL expression (spacy.lang.tokenizer_exceptions.URL_MATCH, token_match is
None for English) and the special cases (only their ORTH pieces).

Run from a directory holding a stub package `spacy/` made of spaCy
release-v3.7.6's pure-Python modules, copied unmodified:
  spacy/lang/char_classes.py, spacy/lang/punctuation.py,
  spacy/lang/tokenizer_exceptions.py, spacy/lang/en/punctuation.py,
  spacy/lang/en/tokenizer_exceptions.py,
plus two stubs for the compiled parts those modules import:
  spacy/symbols.py (ORTH = 65, NORM = 67, the symbol ids) and
  spacy/util.py (update_exc and expand_exc copied from spacy/util.py).
"""
import json
import sys

from spacy.lang.punctuation import TOKENIZER_PREFIXES, TOKENIZER_SUFFIXES
from spacy.lang.tokenizer_exceptions import URL_MATCH
from spacy.symbols import ORTH

# "en": English.Defaults; "xx": BaseDefaults (MultiLanguage, the fixture
# spaCy's own tests call `tokenizer`).
if sys.argv[1] == "en":
    from spacy.lang.en.punctuation import TOKENIZER_INFIXES
    from spacy.lang.en.tokenizer_exceptions import TOKENIZER_EXCEPTIONS
else:
    from spacy.lang.punctuation import TOKENIZER_INFIXES
    from spacy.lang.tokenizer_exceptions import BASE_EXCEPTIONS as TOKENIZER_EXCEPTIONS

# spacy.util.compile_prefix_regex, compile_suffix_regex, compile_infix_regex
prefix = "|".join(["^" + piece for piece in TOKENIZER_PREFIXES if piece.strip()])
suffix = "|".join([piece + "$" for piece in TOKENIZER_SUFFIXES if piece.strip()])
infix = "|".join([piece for piece in TOKENIZER_INFIXES if piece.strip()])

out = {
    "source": "explosion/spaCy release-v3.7.6, %s defaults" % sys.argv[1],
    "prefix": prefix,
    "suffix": suffix,
    "infix": infix,
    "url": URL_MATCH.__self__.pattern,
    "faster_heuristics": True,
    "exceptions": {k: [t[ORTH] for t in v] for k, v in sorted(TOKENIZER_EXCEPTIONS.items())},
}
json.dump(out, sys.stdout, ensure_ascii=False, indent=0, sort_keys=False)
sys.stdout.write("\n")
