#!/usr/bin/env bash
# Peak RSS of a process holding the 1000-tool set and rendering it: the `rss` binary
# (release) under `/usr/bin/time -v`, RUNS times per mode (default 7), median reported.
# Needs GNU time: `apt-get install time`.
#
#   benches/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
if [ ! -x /usr/bin/time ]; then
    echo "GNU time is missing: apt-get install time" >&2
    exit 1
fi
TOOLSET_BENCH_LARGE=1 cargo build --quiet --release -p toolset-benches --bin rss
bin=target/release/rss

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-12s %16s %16s\n' "mode" "peak RSS (KiB)" "minus baseline"
base=
for mode in baseline toolset toolset-mcp rmcp; do
    kib=$(for _ in $(seq "$runs"); do
        /usr/bin/time -v "$bin" "$mode" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
    done | median)
    base=${base:-$kib}
    printf '%-12s %16s %16s\n' "$mode" "$kib" "$((kib - base))"
done
