#!/usr/bin/env bash
# Prints every figure of the speed work on this machine, today's code beside
# the code before it (BASE, a git revision) on the same input, in one run:
#
#   bench/speed.sh              # everything (about 6 minutes on 2 cores)
#   QUICK=1 bench/speed.sh      # the analysis and viewer figures only
#
# Needs git, Go and GNU time (/usr/bin/time, Debian's "time" package) for
# peak memory. The input is `fallacylab deflect synth`: 4 models × 6,000
# generations, two judges (about 48,000 judgements, 48 MB of JSONL).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-e71a6fb}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
work=$(mktemp -d)
export FALLACYLAB_REPORT_CACHE=off # analyses are measured, not read back (but see below)
cleanup() { git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

echo "building today's code and $BASE ..."
go build -o "$work/new" ./cmd/fallacylab
git worktree add -q --detach "$work/base" "$BASE"
(cd "$work/base" && go build -o "$work/old" ./cmd/fallacylab)
"$work/new" deflect synth --out-dir "$work/syn" >/dev/null
gens=$work/syn/generations.jsonl evals=$work/syn/evals.jsonl
printf '%s\n' "$(wc -l <"$gens") generations, $(wc -l <"$evals") evals, $(du -sh "$work/syn" | cut -f1)"

# best of 3: "seconds peak-MB"
measure() {
  local best="" out
  for _ in 1 2 3; do
    out=$(/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1)
    if [ -z "$best" ] || awk -v a="${out% *}" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best=$out; fi
  done
  awk -v s="${best% *}" -v kb="${best#* }" 'BEGIN{printf "%5.2f s %5.0f MB", s, kb/1024}'
}
row() { printf '%-44s %-18s %-18s %s\n' "$@"; }

echo
row "figure" "$BASE" "today" "goal"
for bin in old new; do
  rm -f "$work/$bin.db"*
  "$work/$bin" --quiet --db "$work/$bin.db" deflect import --generations "$gens" --evals "$evals" >/dev/null 2>&1
  "$work/$bin" --quiet --db "$work/$bin.db" deflect report --generations "$gens" --evals "$evals" --out "$work/$bin.jsonl.md" 2>/dev/null
  "$work/$bin" --quiet --db "$work/$bin.db" deflect report --out "$work/$bin.store.md" 2>/dev/null
done
row "deflect report from JSONL (1,000 resamples)" \
  "$(measure "$work/old" --quiet deflect report --generations "$gens" --evals "$evals" --out "$work/x.md")" \
  "$(measure "$work/new" --quiet deflect report --generations "$gens" --evals "$evals" --out "$work/x.md")" "≤ 0.6 s, ≤ 150 MB"
export FALLACYLAB_REPORT_CACHE=off
row "deflect report from the store (analysed)" \
  "$(measure "$work/old" --quiet --db "$work/old.db" deflect report --out "$work/x.md")" \
  "$(measure "$work/new" --quiet --db "$work/new.db" deflect report --out "$work/x.md")" "≤ 0.3 s"
export FALLACYLAB_REPORT_CACHE=$work/report-cache
"$work/new" --quiet --db "$work/new.db" deflect report --out "$work/x.md" 2>/dev/null
row "  again, or in another format (cached)" "" \
  "$(measure "$work/new" --quiet --db "$work/new.db" deflect report --format html --out "$work/x.html")" "≤ 0.3 s"
export FALLACYLAB_REPORT_CACHE=off
row "deflect import into a new store" \
  "$(measure bash -c "rm -f '$work/i1.db'*; '$work/old' --quiet --db '$work/i1.db' deflect import --generations '$gens' --evals '$evals'")" \
  "$(measure bash -c "rm -f '$work/i2.db'*; '$work/new' --quiet --db '$work/i2.db' deflect import --generations '$gens' --evals '$evals'")" "≤ 1.5 s, ≤ 150 MB"
# As users run it, with the report cache on: the import analyses the default
# report on its second core while it writes, and the first report reads it.
export FALLACYLAB_REPORT_CACHE=$work/import-cache
row "  with the report cache on (as by default)" "" \
  "$(measure bash -c "rm -rf '$work/i3.db'* '$work/import-cache'; '$work/new' --quiet --db '$work/i3.db' deflect import --generations '$gens' --evals '$evals'")" ""
row "  then the first deflect report of the run" "" \
  "$(measure "$work/new" --quiet --db "$work/i3.db" deflect report --out "$work/x.md")" "≤ 0.3 s"
export FALLACYLAB_REPORT_CACHE=off
cmp -s "$work/old.jsonl.md" "$work/new.jsonl.md" && same=identical || same=DIFFERENT
echo "  report bytes from JSONL, $BASE vs today: $same"
# Reports from a store name it: compare them with the store's name left out.
samebytes() { cmp -s <(sed "s#$work/[a-z0-9-]*\.db#STORE#g" "$1") <(sed "s#$work/[a-z0-9-]*\.db#STORE#g" "$2") && echo identical || echo DIFFERENT; }
echo "  report bytes from the store (its name aside), $BASE vs today: $(samebytes "$work/old.store.md" "$work/new.store.md")"
# The same run at 4× (20 samples per cell, 96,000 generations): memory
# must not grow with the run beyond a few bytes a record, time at most 4.2×.
"$work/new" deflect synth --samples 20 --out-dir "$work/syn4" >/dev/null
gens4=$work/syn4/generations.jsonl evals4=$work/syn4/evals.jsonl
printf '%s\n' "4×: $(wc -l <"$gens4") generations, $(wc -l <"$evals4") evals, $(du -sh "$work/syn4" | cut -f1)"
row "4×: deflect report from JSONL" \
  "$(measure "$work/old" --quiet deflect report --generations "$gens4" --evals "$evals4" --out "$work/x.md")" \
  "$(measure "$work/new" --quiet deflect report --generations "$gens4" --evals "$evals4" --out "$work/x.md")" "≤ 300 MB"
row "4×: deflect import into a new store" \
  "$(measure bash -c "rm -f '$work/j1.db'*; '$work/old' --quiet --db '$work/j1.db' deflect import --generations '$gens4' --evals '$evals4'")" \
  "$(measure bash -c "rm -f '$work/j2.db'*; '$work/new' --quiet --db '$work/j2.db' deflect import --generations '$gens4' --evals '$evals4'")" "≤ 200 MB"
row "4×: deflect report from the store (analysed)" \
  "$(measure "$work/old" --quiet --db "$work/j1.db" deflect report --out "$work/x.md")" \
  "$(measure "$work/new" --quiet --db "$work/j2.db" deflect report --out "$work/x.md")" "≤ 250 MB"
for bin in old new; do "$work/$bin" --quiet --db "$work/$bin-f.db" foils audit --out "$work/$bin.foils.md" >/dev/null 2>&1; done
row "foils report (stored audit, reddit, built-in)" \
  "$(measure "$work/old" --quiet --db "$work/old-f.db" foils report --out "$work/x.md")" \
  "$(measure "$work/new" --quiet --db "$work/new-f.db" foils report --out "$work/x.md")" "faster"
"$work/old" --quiet --db "$work/old-f.db" foils report --out "$work/old.fr.md" 2>/dev/null
"$work/new" --quiet --db "$work/new-f.db" foils report --out "$work/new.fr.md" 2>/dev/null
echo "  foils report bytes (the store's name aside), $BASE vs today: $(samebytes "$work/old.fr.md" "$work/new.fr.md")"
python3 - "$work/missci.jsonl" <<'EOF'
import json, sys
out = open(sys.argv[1], "w")
for line in open("bench/missci/data/test.missci.jsonl"):
    a = json.loads(line)
    for i, f in enumerate(a["argument"]["fallacies"]):
        fid = str(f.get("id", i)).split(":")[-1]
        preds = [{"premise": x["premise"], "class": x["class"]} for x in f.get("interchangeable_fallacies", [])[:1]]
        preds.append({"premise": a["argument"]["claim"], "class": "Causal Oversimplification"})
        out.write(json.dumps({"id": f"{a['id']}:{fid}", "predictions": preds}) + "\n")
EOF
row "missci eval, 363 lines, k = all" \
  "$(measure "$work/old" --quiet missci eval --predictions "$work/missci.jsonl" --k all --out "$work/x.md")" \
  "$(measure "$work/new" --quiet missci eval --predictions "$work/missci.jsonl" --k all --out "$work/x.md")" "faster than 0.45 s"
# A stored reconstruction run (the legacy store of the CLI tests): its
# report scores METEOR, whose WordNet index every process reads once.
for bin in old new; do gunzip -c internal/cli/testdata/legacy/legacy.db.gz >"$work/$bin-m.db"; "$work/$bin" --quiet --db "$work/$bin-m.db" runs >/dev/null 2>&1; done
row "missci report (stored run, METEOR)" \
  "$(measure "$work/old" --quiet --db "$work/old-m.db" missci report --run 3 --k all --out "$work/x.md")" \
  "$(measure "$work/new" --quiet --db "$work/new-m.db" missci report --run 3 --k all --out "$work/x.md")" "faster"

echo
echo "in-process benchmarks (go test -bench):"
go test ./bench/deflect -run '^$' -bench 'ReportFromJSONL|FullReport' -benchtime 3x | grep Benchmark
go test ./web -run '^$' -bench ViewerFullRun -benchtime 2x | grep Benchmark
go test ./internal/cli -run '^$' -bench LargeStore -benchtime 1x -timeout 20m | grep Benchmark # FALLACYLAB_LARGE_STORE=1000000 for a million calls
go test ./engine -run '^$' -bench CachedRerun100k -benchtime 1x -timeout 10m | grep Benchmark
[ -n "${QUICK:-}" ] && exit 0
go test ./engine -run '^$' -bench 'DefaultFlags|Connections|Throughput|Plan50k' -benchtime 1x -timeout 20m | grep Benchmark
go test ./engine -run '^$' -bench 'Isolated429s|WindowWithoutHints' -benchtime 1x -timeout 30m | grep Benchmark
