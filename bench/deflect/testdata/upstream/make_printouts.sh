#!/bin/sh
# Makes the analysis.py printouts that TestUpstreamPrintout checks every
# number of: two synthetic runs of different shape, each analysed by upstream
# DeflectBench's own analysis.py, unmodified.
#
#   ANALYSIS_PY=/path/to/analysis.py bench/deflect/testdata/upstream/make_printouts.sh
#
# analysis.py is gadget101/DeflectBench at commit
# b4b6b0d1e2c32122f1a8aad8f43191d389d49b79 (not copied into this repository).
# Made with Debian 12's python3 3.11, python3-pandas 1.5.3, python3-numpy
# 1.24.2 and python3-sklearn 1.2.1 (apt-get install python3-pandas
# python3-sklearn). The synth flags here must match printoutRuns in
# upstream_printout_test.go.
set -eu
: "${ANALYSIS_PY:?set ANALYSIS_PY to upstream analysis.py}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/fallacylab" ./cmd/fallacylab)
run() { # name, synth flags...
	name=$1
	shift
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && "$tmp/fallacylab" deflect synth --out . "$@" >/dev/null &&
		mv generations.jsonl generations_synth.jsonl && mv evals.jsonl evals_synth.jsonl &&
		"$py" "$ANALYSIS_PY" >/dev/null)
	cp "$tmp/$name/analysis_report.txt" "$here/printout_$name.txt"
}
# The paper's four model names (analysis.py hard-codes gpt-5.5 and
# claude-opus-4-7 in two sections), two samples per condition.
run paper --samples 2 --seed 7
# Three other models, three samples, a noisy second judge, parse errors.
run other --models alpha-7b,beta-large,gamma-2 --samples 3 --seed 11 --judge-noise 0.08 --parse-errors 0.01 --error-rate 0.003
"$py" -c 'import pandas, numpy, sklearn, sys; print("python", sys.version.split()[0], "pandas", pandas.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__)' >"$here/versions.txt"
