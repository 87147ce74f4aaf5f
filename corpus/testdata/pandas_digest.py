#!/usr/bin/python3
"""Digest of the Reddit corpus texts as pandas parses them (Debian python3-pandas).

    /usr/bin/python3 corpus/testdata/pandas_digest.py ../shared/data/reddit_fallacy > corpus/testdata/pandas_digest.json

The Go loader must produce the same (key, text) pairs: the test hashes its own parse the same way.
Key = "<raw type>/<comment_id>|<file name>"; for keys repeated within a file the last row wins
(as a Python dict does).
"""
import glob
import hashlib
import json
import os
import sys

import pandas as pd

root = sys.argv[1]
pairs = {}
for f in sorted(glob.glob(os.path.join(root, "raw", "*.csv"))):
    b = os.path.basename(f)
    if "negative" in b:
        d = pd.read_csv(f, sep="\t", keep_default_na=False)
    else:
        d = pd.read_csv(f, index_col=0, keep_default_na=False)
    raw = b.split("_annotated")[0].split("_negative")[0]
    for _, r in d.iterrows():
        pairs[raw + "/" + str(r.comment_id) + "|" + b] = str(r.parent)
h = hashlib.sha256()
for k in sorted(pairs):
    h.update(k.encode() + b"\0" + pairs[k].encode() + b"\0")
json.dump({"pandas": pd.__version__, "keys": len(pairs), "sha256": h.hexdigest()}, sys.stdout)
sys.stdout.write("\n")
