#!/usr/bin/env bash
# Prints every figure of the speed work (issue 46's table, then the older
# rows) on this machine, today's code beside the code before it (BASE, a
# git revision), on the same input, in one run:
#
#   bench/speed.sh                 # everything (about 15 minutes on 2 cores)
#   QUICK=1 bench/speed.sh         # issue 46's analysis, memory and viewer rows only
#   RUNS=5 bench/speed.sh          # each command measured 5 times (default 3)
#
# Each command is run RUNS times and printed as "min–max" of its CPU time
# (user + system, every thread: steadier than the wall clock on a busy
# machine) and of its peak memory (max RSS). Needs git, Go, curl and GNU
# time (/usr/bin/time, Debian's "time" package). The team rows need a
# PostgreSQL server: FALLACYLAB_TEST_POSTGRES=postgres://… (skipped
# without one).
#
# The data of every row (said again beside it):
#   1× = `fallacylab deflect synth --samples 5`: 4 models × 6,000
#        generations, two judges (24,000 generations, 47,978 judgements, 48 MB
#        of upstream-format JSONL);
#   4× = `fallacylab deflect synth --samples 20` (96,000 and 191,920).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-0a292e9}
RUNS=${RUNS:-3}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
work=$(mktemp -d)
cleanup() { git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

echo "building today's code and $BASE ..."
go build -o "$work/new" ./cmd/fallacylab
git worktree add -q --detach "$work/base" "$BASE"
(cd "$work/base" && go build -o "$work/old" ./cmd/fallacylab)
cat "$work/new" "$work/old" >/dev/null # read once, alike (see settle)
[ -w /proc/sys/vm/drop_caches ] && echo "(the page cache is dropped before each measured run)"
"$work/new" --quiet deflect synth --samples 5 --out-dir "$work/syn1" >/dev/null 2>&1
"$work/new" --quiet deflect synth --samples 20 --out-dir "$work/syn4" >/dev/null 2>&1
for s in 1 4; do
  printf '%s× data: %s generations, %s judgements\n' "$s" "$(wc -l <"$work/syn$s/generations.jsonl")" "$(wc -l <"$work/syn$s/evals.jsonl")"
done

# settle: how much of a binary's file a process maps (10–15 MB of each
# figure) depends on how the page cache holds it — a file just written by
# go build is held in large pieces, each mapped whole — so, where this may
# (root), the cache is dropped before each measured run and both programs
# are read from the disk alike. Elsewhere the binaries are read once, which
# narrows the gap; compare the figures of one column with care.
settle() {
  if [ -w /proc/sys/vm/drop_caches ]; then sync; echo 1 >/proc/sys/vm/drop_caches; fi
}
# measure CMD…: "cpu-min–max s rss-min–max MB" over RUNS runs.
measure() {
  local out cpus=() rss=()
  for _ in $(seq "$RUNS"); do
    settle
    out=$(/usr/bin/time -f "%U %S %M" "$@" 2>&1 >/dev/null | tail -1)
    read -r u s m <<<"$out"
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')") rss+=("$((m / 1024))")
  done
  printf '%s–%s s %s–%s MB' "$(printf '%s\n' "${cpus[@]}" | sort -n | head -1)" "$(printf '%s\n' "${cpus[@]}" | sort -n | tail -1)" \
    "$(printf '%s\n' "${rss[@]}" | sort -n | head -1)" "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)"
}
# viewcold BIN DB: the viewer's first request of run 1's page, in a fresh
# viewer process: "cpu s rss MB" of the whole process until it answered.
viewcold() {
  local port=$((7500 + RANDOM % 400)) pid u0 s0 u1 s1
  settle
  "$1" --quiet --db "$2" view --addr "127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  curl -s -o /dev/null "http://127.0.0.1:$port/runs/1"
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  awk -v t=$((u1 - u0 + s1 - s0)) -v hz="$(getconf CLK_TCK)" -v kb="$(awk '/VmHWM/{print $2}' "/proc/$pid/status")" 'BEGIN{printf "%.2f %d\n", t/hz, kb/1024}'
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
viewrow() {
  local cpus=() rss=() c m
  for _ in $(seq "$RUNS"); do read -r c m < <(viewcold "$1" "$2"); cpus+=("$c") rss+=("$m"); done
  printf '%s–%s s %s–%s MB' "$(printf '%s\n' "${cpus[@]}" | sort -n | head -1)" "$(printf '%s\n' "${cpus[@]}" | sort -n | tail -1)" \
    "$(printf '%s\n' "${rss[@]}" | sort -n | head -1)" "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)"
}
row() { printf '%-58s %-26s %-26s %s\n' "$@"; }

echo
echo "issue 46 (CPU time and max RSS, min–max of $RUNS runs; data in brackets):"
row "figure" "$BASE" "today" "goal"
floor=$(FALLACYLAB_SYNTH_DIR=$work/syn1 go test ./bench/deflect -run '^$' -bench DecodeFloor -benchtime 5x | awk '/Benchmark/{for(i=1;i<=NF;i++) if($i=="floor-cpu-ms") print $(i-1)}')
export FALLACYLAB_REPORT_CACHE=off
row "deflect report from the JSONL [1×]" \
  "$(measure "$work/old" --quiet deflect report --generations "$work/syn1/generations.jsonl" --evals "$work/syn1/evals.jsonl" --out "$work/x.md")" \
  "$(measure "$work/new" --quiet deflect report --generations "$work/syn1/generations.jsonl" --evals "$work/syn1/evals.jsonl" --out "$work/x.md")" \
  "≤ 2 × the floor"
row "  the floor: every line parsed, nothing kept [1×]" "" "${floor} CPU-ms (BenchmarkDecodeFloor)" ""
# importrow BIN S: a new store of the S× files (run 1), the report cache
# on, as users run it (a fresh cache, which the import fills).
importrow() {
  FALLACYLAB_REPORT_CACHE=$work/cache measure bash -c "rm -rf '$work/$1-$2.db'* '$work/cache'; '$work/$1' --quiet --db '$work/$1-$2.db' deflect import --generations '$work/syn$2/generations.jsonl' --evals '$work/syn$2/evals.jsonl'"
}
row "deflect import into a new store, report cache on [1×]" "$(importrow old 1)" "$(importrow new 1)" "≤ 150 MB"
row "deflect import into a new store, report cache on [4×]" "$(importrow old 4)" "$(importrow new 4)" "≤ 200 MB"
for s in 1 4; do
  goal="≤ 0.3 s"; [ "$s" = 4 ] && goal="≤ 0.3 s, ≤ 250 MB"
  row "cold deflect report --run 1, report cache off [$s×]" \
    "$(measure "$work/old" --quiet --db "$work/old-$s.db" deflect report --run 1 --out "$work/x.md")" \
    "$(measure "$work/new" --quiet --db "$work/new-$s.db" deflect report --run 1 --out "$work/x.md")" "$goal"
done
row "viewer: first request of run 1's page, fresh viewer [1×]" "$(viewrow "$work/old" "$work/old-1.db")" "$(viewrow "$work/new" "$work/new-1.db")" "≤ 0.3 s, ≤ 150 MB"
"$work/old" --quiet --db "$work/old-1.db" deflect report --run 1 --out "$work/old.store.md" 2>/dev/null
"$work/new" --quiet --db "$work/new-1.db" deflect report --run 1 --out "$work/new.store.md" 2>/dev/null
samebytes() { cmp -s <(sed "s#$work/[a-z0-9-]*\.db#STORE#g" "$1") <(sed "s#$work/[a-z0-9-]*\.db#STORE#g" "$2") && echo identical || echo DIFFERENT; }
echo "  report bytes from the store (its name aside), $BASE vs today: $(samebytes "$work/old.store.md" "$work/new.store.md")"
"$work/old" --quiet deflect report --generations "$work/syn4/generations.jsonl" --evals "$work/syn4/evals.jsonl" --format json --out "$work/old4.json" 2>/dev/null
"$work/new" --quiet deflect report --generations "$work/syn4/generations.jsonl" --evals "$work/syn4/evals.jsonl" --format json --out "$work/new4.json" 2>/dev/null
echo "  report bytes from the JSONL [4×], $BASE vs today: $(cmp -s "$work/old4.json" "$work/new4.json" && echo identical || echo DIFFERENT)"
[ -n "${QUICK:-}" ] && exit 0

echo
echo "engine (go test -bench, one run each side; the test server's latencies are drawn from a fixed seed):"
pool() { (cd "$1" && go test ./engine -run '^$' -bench 'DefaultFlags' -benchtime 1x -count "$RUNS" -timeout 20m) |
  awk '/Benchmark/{for(i=1;i<=NF;i++){if($i=="req/s") r=$(i-1); if($i=="pool-at-peak-ideal-req/s") p=$(i-1)} printf "%.1f %% ", 100*r/p}'; }
row "engine: 1,200 calls, lognormal 500 ms σ 1, defaults" "$(pool "$work/base")" "$(pool .)" "≥ 95 % of the ideal pool"
conns() { (cd "$1" && go test ./engine -run '^$' -bench 'Connections' -benchtime 1x -timeout 20m) | awk '/Benchmark/{for(i=1;i<=NF;i++) if($i=="connections") print $(i-1)}'; }
row "  TCP connections, 10,000 calls at --concurrency 64" "$(conns "$work/base")" "$(conns .)" "≤ 64"
# Before 534ed1d the window benchmarks' server answered at once (their mean
# latency overflowed an int64): with a BASE older than that, this row's
# base column is of a provider with no latency; apply 534ed1d's benchWindow
# to the base to compare like with like.
hidden() { (cd "$1" && go test ./engine -run '^$' -bench 'WindowWithoutHints' -benchtime 1x -count "$RUNS" -timeout 30m) |
  awk '/Benchmark/{for(i=1;i<=NF;i++){if($i=="%of-limit") u=$(i-1); if($i=="%429") q=$(i-1)} printf "%.1f/%.1f ", u, q}'; }
row "hidden limit 600/min, no hints (% of limit used / % refused)" "$(hidden "$work/base")" "$(hidden .)" "≥ 99 % / ≤ 2 %"
if [ -n "${FALLACYLAB_TEST_POSTGRES:-}" ]; then
  echo
  echo "team (PostgreSQL at \$FALLACYLAB_TEST_POSTGRES; today's code):"
  # Scaling: workers started with the run; ScalingTeam: a team already up,
  # idle or warm (its workers served a run of the model before), against
  # Scaling's one-process run.
  go test ./internal/cli/teamtest -run '^$' -bench 'Scaling|IdleTeamFirstCall|PhaseGap' -benchtime 1x -count "$RUNS" -timeout 30m | grep Benchmark
fi

echo
echo "in-process benchmarks of the earlier speed work (today's code):"
go test ./bench/deflect -run '^$' -bench 'ReportFromJSONL|FullReport' -benchtime 3x | grep Benchmark
go test ./web -run '^$' -bench ViewerFullRun -benchtime 2x | grep Benchmark
go test ./internal/cli -run '^$' -bench LargeStore -benchtime 1x -timeout 20m | grep Benchmark # FALLACYLAB_LARGE_STORE=1000000 for a million calls
go test ./engine -run '^$' -bench 'CachedRerun100k|Throughput|Plan50k' -benchtime 1x -timeout 20m | grep Benchmark
