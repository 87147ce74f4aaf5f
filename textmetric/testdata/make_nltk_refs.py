#!/usr/bin/python3
"""nltk reference values for textmetric (Debian python3-nltk 3.8 and wordnet-base 3.0).

    /usr/bin/python3 textmetric/testdata/make_nltk_refs.py bench/missci/data/human-eval.csv > textmetric/testdata/nltk_refs.json

Tokenisation is nltk's word_tokenize pipeline with an untrained PunktSentenceTokenizer (what
reproduces the Missci paper's Table 13) and NLTKWordTokenizer; stems come from
PorterStemmer(NLTK_EXTENSIONS); synonyms from WordNetCorpusReader over /usr/share/wordnet (Debian
does not ship the `lexnames` file nltk opens, so a placeholder is written; lexical file names are
not used here); METEOR from nltk.translate.meteor_score.single_meteor_score.
"""
import csv
import json
import os
import sys
import tempfile

from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.stem.porter import PorterStemmer
from nltk.tokenize import NLTKWordTokenizer, PunktSentenceTokenizer
from nltk.translate import meteor_score
import nltk
from scipy import stats

wndir = tempfile.mkdtemp()
for f in os.listdir("/usr/share/wordnet"):
    os.symlink(os.path.join("/usr/share/wordnet", f), os.path.join(wndir, f))
with open(os.path.join(wndir, "lexnames"), "w") as fp:
    for i in range(45):
        fp.write("%02d\tlex%d\t1\n" % (i, i))
wn = WordNetCorpusReader(wndir, None)
punkt = PunktSentenceTokenizer()
treebank = NLTKWordTokenizer()
stemmer = PorterStemmer()


def tokenize(text):
    return [t for s in punkt.tokenize(text) for t in treebank.tokenize(s)]


rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
texts = [r["generated_premise"] for r in rows] + [r["reference_premise"] for r in rows]
extra = ["He said \"hello.\" Then left.", "Dr. Smith arrived at 5 p.m. He was late!", "J. R. R. Tolkien wrote it (in 1954).",
         "It's what they'd've done -- cannot, gonna, wanna go.", "Prices rose 3.5% in Q1... Really?! Yes.",
         "“Quoted” text, with ‘single’ quotes: e.g. this; and that.", "Trailing colon:", "Ellipsis... continues. Next one",
         "The U.S. economy grew. Analysts said so.", "(Parenthetical.) Another sentence."]
sentences = {t: punkt.tokenize(t) for t in extra}
tokens = {t: tokenize(t) for t in texts + extra}
words = sorted({w.lower() for t in tokens.values() for w in t} | {"skies", "dying", "lying", "innings", "generously", "conditional",
         "relational", "hopefully", "agreed", "studies", "ties", "cries", "controlling", "formality", "analogi", "sensitivity"})
stems = {w: stemmer.stem(w) for w in words}
syn_words = sorted(set(list(stems.values())[::7] + ["dog", "studi", "run", "better", "geese", "went", "women", "caus", "increas", "vaccin"]))
synonyms = {w: sorted({l.name() for s in wn.synsets(w) for l in s.lemmas() if "_" not in l.name()} | {w}) for w in syn_words}
scores = [meteor_score.single_meteor_score(tokenize(r["reference_premise"]), tokenize(r["generated_premise"]), wordnet=wn) for r in rows]
q4 = [1.0 if r["q4"].strip().lower() == "true" else 0.0 for r in rows]
yes = [s for s, q in zip(scores, q4) if q == 1]
no = [s for s, q in zip(scores, q4) if q == 0]
r, p = stats.pearsonr(scores, q4)
json.dump({"nltk": nltk.__version__, "sentences": sentences, "tokens": tokens, "stems": stems, "synonyms": synonyms,
           "meteor": scores, "table13": {"yes_mean": sum(yes) / len(yes), "no_mean": sum(no) / len(no), "n_yes": len(yes),
                                         "n_no": len(no), "r": r, "p": p}}, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
sys.stdout.write("\n")
