#!/usr/bin/python3
"""Writes fuzz.json: 2000 seeded random strings built from the pieces spaCy's rules turn on
(punctuation, quotes, hyphens, ellipses, currency, units, contractions, abbreviations, URLs,
e-mail addresses, emoticons, symbols, whitespace of every kind, letters of several scripts),
each with the tokens spacy_tokenizer.py gives it under the English rules (../../data/spacy_en.json).
TestSpacyEqualsTheTranscriptionOnFuzz requires the Go tokenizer to give the same.

    /usr/bin/python3 tokenize/testdata/spacy/make_fuzz.py > tokenize/testdata/spacy/fuzz.json
"""
import json
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from spacy_tokenizer import Tokenizer  # noqa: E402

PIECES = [
    "a", "b", "x", "Z", "Q", "the", "Cat", "dog", "USA", "e", "I", "s", "t",
    "é", "ß", "Ł", "ж", "Жук", "α", "Ω", "ΑΣ", "中文", "かな", "한국", "ع", "א",
    "0", "1", "7", "42", "10,000", "3.5", "1/2", "2024", "+1", "x^2", "5-3", "12:30",
    ".", ",", ";", ":", "!", "?", "¿", "¡", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\",
    "*", "&", "#", "@", "=", "+", "-", "_", "|", "~", "^", "§", "%",
    "'", '"', "`", "‘", "’", "“", "”", "«", "»", "‹", "›", "''", "``", ",,",
    "–", "—", "--", "---", "...", "..", "…", "....",
    "$", "€", "£", "¥", "US$", "km", "kg", "mg", "ml", "°C", "°F", "°", "²", "%",
    "'s", "'S", "’s", "n't", "'ll", "'re", "'ve", "'d", "'m",
    "don't", "Don't", "can't", "won't", "ain't", "y'all", "'cause", "o'clock", "ma'am",
    "U.S.", "U.K.", "e.g.", "i.e.", "a.m.", "p.m.", "Mr.", "Dr.", "Jan.", "etc.", "vs.", "No.",
    "http://example.com", "https://www.foo.org/a_b?c=1&d=2#x", "www.spacy.io", "foo.com",
    "user@mail.com", "mailto:x@y.de", "ftp://1.2.3.4:8080/x", "http://10.0.0.1",
    ":)", ":-(", ";)", "<3", ":P", "=)", "xD", "o.O", "¯\\(ツ)/¯", "(:", ":(((",
    "©", "™", "♥", "→", "★", "😀", "👍🏽", "±", "×", "÷",
    " ", "  ", "   ", "\n", "\n\n", "\t", "\xa0", "\u2003", " \n ", "\r\n",
]
SEPS = ["", "", "", " ", " ", " ", "  ", "\n", "-", "."]

rng = random.Random(20261205)
english = Tokenizer(os.path.join(here, "..", "..", "data", "spacy_en.json"))
cases = []
for _ in range(2000):
    n = rng.randint(1, 10)
    text = ""
    for i in range(n):
        if i:
            text += rng.choice(SEPS)
        text += rng.choice(PIECES)
    cases.append([text, [[t.text, t.whitespace_ == " "] for t in english(text)]])
json.dump({"seed": 20261205, "cases": cases}, sys.stdout, ensure_ascii=False)
sys.stdout.write("\n")
