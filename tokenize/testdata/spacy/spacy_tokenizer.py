"""A line-by-line Python transcription of spaCy release-v3.7.6's Tokenizer
(spacy/tokenizer.pyx: __call__, _tokenize_affixes, _split_affixes,
_attach_tokens, add_special_case, _apply_special_cases and its helpers, and
PhraseMatcher.find_matches), keeping only what decides token texts and
offsets. It calls Python's own `re` with the rule expressions spaCy
serialises (spacy_en.json / spacy_xx.json, written by dump.py), so the
regular-expression semantics are Python's, as in spaCy.

Left out, because they cannot change a token: the lexeme cache
(_try_specials_and_cache's _cache, _save_cached: it memoises the same
function of the same span), lexeme attributes other than ORTH, and memory
management. It serves two purposes: spaCy's own tokenizer tests run against
it (run_spacy_tests.py), and it stands in for spacy.load when upstream's
bm25.py makes the BM25 fixture (missciplus/testdata/make_bm25_rank.py).
"""
import json
import re


class Token:
    def __init__(self, doc, i, text, idx, spacy):
        self.doc, self.i, self.text, self.idx = doc, i, text, idx
        self.whitespace_ = " " if spacy else ""
        self.text_with_ws = text + self.whitespace_
        self.orth_ = text

    def __len__(self):
        return len(self.text)

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text

    @property
    def lower_(self):
        return self.text.lower()


class Span(list):
    @property
    def text(self):
        if not self:
            return ""
        return "".join(t.text_with_ws for t in self[:-1]) + self[-1].text


class Doc:
    def __init__(self, pieces):
        self.tokens, idx = [], 0
        for i, (text, spacy) in enumerate(pieces):
            self.tokens.append(Token(self, i, text, idx, spacy))
            idx += len(text) + (1 if spacy else 0)

    def __len__(self):
        return len(self.tokens)

    def __iter__(self):
        return iter(self.tokens)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Span(self.tokens[i])
        return self.tokens[i]

    @property
    def text(self):
        return "".join(t.text_with_ws for t in self.tokens)

    @property
    def text_with_ws(self):
        return self.text


class Tokenizer:
    def __init__(self, rules_file):
        with open(rules_file, encoding="utf-8") as f:
            data = json.load(f)
        self.prefix_search = re.compile(data["prefix"]).search
        self.suffix_search = re.compile(data["suffix"]).search
        self.infix_finditer = re.compile(data["infix"]).finditer
        self.url_match = re.compile(data["url"]).match
        self.token_match = None
        self.faster_heuristics = data["faster_heuristics"]
        self._specials = {}
        self._patterns = {}  # the special matcher: first token -> [token texts]
        for chunk, substrings in sorted(data["exceptions"].items()):
            self.add_special_case(chunk, substrings)

    def add_special_case(self, string, substrings):
        assert "".join(substrings) == string
        self._specials[string] = list(substrings)
        if not self.faster_heuristics or self.find_prefix(string) or self.find_infix(string) \
                or self.find_suffix(string) or " " in string:
            pattern = [t for t, _ in self._tokenize_affixes(string, False)]
            if pattern:  # PhraseMatcher.add skips empty docs
                self._patterns.setdefault(pattern[0], []).append(pattern)

    def find_infix(self, string):
        return list(self.infix_finditer(string))

    def find_prefix(self, string):
        match = self.prefix_search(string)
        return (match.end() - match.start()) if match is not None else 0

    def find_suffix(self, string):
        match = self.suffix_search(string)
        return (match.end() - match.start()) if match is not None else 0

    def __call__(self, string):
        pieces = self._tokenize_affixes(string, True)
        pieces = self._apply_special_cases(pieces)
        return Doc(pieces)

    def _tokenize_affixes(self, string, with_special_cases):
        tokens = []
        length = len(string)
        if length == 0:
            return tokens
        i = 0
        start = 0
        in_ws = string[0].isspace()
        for uc in string:
            if uc.isspace() != in_ws:
                if start < i:
                    tokens.extend(self._span(string[start:i], with_special_cases))
                if uc == " ":
                    tokens[-1][1] = True
                    start = i + 1
                else:
                    start = i
                in_ws = not in_ws
            i += 1
        if start < i:
            tokens.extend(self._span(string[start:], with_special_cases))
            tokens[-1][1] = string[-1] == " " and not in_ws
        return tokens

    def _span(self, span, with_special_cases):
        # _try_specials_and_cache, then _tokenize
        if with_special_cases and span in self._specials:
            return [[t, False] for t in self._specials[span]]
        prefixes, suffixes = [], []
        string = self._split_affixes(span, prefixes, suffixes, with_special_cases)
        out = [[p, False] for p in prefixes]
        out.extend(self._attach_tokens(string, with_special_cases))
        out.extend([s, False] for s in reversed(suffixes))
        return out

    def _split_affixes(self, string, prefixes, suffixes, with_special_cases):
        last_size = 0
        while string and len(string) != last_size:
            if self.token_match and self.token_match(string):
                break
            if with_special_cases and string in self._specials:
                break
            last_size = len(string)
            pre_len = self.find_prefix(string)
            if pre_len != 0:
                prefix = string[:pre_len]
                minus_pre = string[pre_len:]
                if minus_pre and with_special_cases and minus_pre in self._specials:
                    string = minus_pre
                    prefixes.append(prefix)
                    break
            suf_len = self.find_suffix(string[pre_len:])
            if suf_len != 0:
                suffix = string[-suf_len:]
                minus_suf = string[:-suf_len]
                if minus_suf and with_special_cases and minus_suf in self._specials:
                    string = minus_suf
                    suffixes.append(suffix)
                    break
            if pre_len and suf_len and (pre_len + suf_len) <= len(string):
                string = string[pre_len:-suf_len]
                prefixes.append(prefix)
                suffixes.append(suffix)
            elif pre_len:
                string = minus_pre
                prefixes.append(prefix)
            elif suf_len:
                string = minus_suf
                suffixes.append(suffix)
        return string

    def _attach_tokens(self, string, with_special_cases):
        if not string:
            return []
        if with_special_cases and string in self._specials:
            return [[t, False] for t in self._specials[string]]
        if (self.token_match and self.token_match(string)) or (self.url_match and self.url_match(string)):
            return [[string, False]]
        matches = self.find_infix(string)
        if not matches:
            return [[string, False]]
        out = []
        start = 0
        start_before_infixes = start
        for match in matches:
            infix_start = match.start()
            infix_end = match.end()
            if infix_start == start_before_infixes:
                continue
            if infix_start != start:
                out.append([string[start:infix_start], False])
            if infix_start != infix_end:
                out.append([string[infix_start:infix_end], False])
            start = infix_end
        span = string[start:]
        if span:
            out.append([span, False])
        return out

    def _apply_special_cases(self, tokens):
        # PhraseMatcher.find_matches: every (start, end) where a pattern's
        # token texts equal the doc's (its trie, as a dict by first token).
        matches = []
        texts = [t for t, _ in tokens]
        for start in range(len(texts)):
            for pattern in self._patterns.get(texts[start], []):
                if texts[start:start + len(pattern)] == pattern:
                    matches.append((start, start + len(pattern)))
        if not matches:
            return tokens
        # _filter_special_spans: longest first, then leftmost
        matches.sort(key=lambda m: (m[1] - m[0], -m[0]))
        seen, filtered = set(), []
        for start, end in reversed(matches):
            if start not in seen and end - 1 not in seen:
                filtered.append((start, end))
            seen.update(range(start, end))
        span_data = {}
        for start, end in filtered:
            text = "".join(t + (" " if s else "") for t, s in tokens[start:end - 1]) + tokens[end - 1][0]
            span_data[start] = (text, end)
        # _retokenize_special_spans
        out, i = [], 0
        while i < len(tokens):
            if i not in span_data:
                out.append(tokens[i])
                i += 1
                continue
            text, end = span_data[i]
            special = self._specials.get(text)
            if special is None:
                out.extend(tokens[i:end])
            else:
                pieces = [[t, False] for t in special]
                pieces[-1][1] = tokens[end - 1][1]
                out.extend(pieces)
            i = end
        return out
