#!/usr/bin/env bash
# The one run BENCHMARKS.md is regenerated from: every benchmark, built once (release, with
# the 1000-tool sets), then run one after the other, each writing its raw output into
# $OUT (default target/bench-run):
#
#   meta.txt          the commit, the toolchain, the machine's load before and after
#   criterion.log/.md every criterion benchmark (benches/benches/*.rs), then
#                     benches/summarize.py's tables of their medians
#   instructions.*    callgrind instruction counts per call (benches/instructions.py)
#   memory.txt        peak RSS holding the 1000-tool set (benches/memory.sh)
#   rejected.txt      Rejected::results timed once at 7,500 to 60,000 invalid calls
#   load.txt          the MCP HTTP load comparison (src/bin/mcp_load.rs, 200 clients x 20)
#   compile.txt       compile cost, 100 tools (benches/compile_cost.sh, hyperfine medians)
#   agent.txt         a newcomer-sized agent on toolset and on rmcp: debug binary and
#                     edit-rebuild per profile (benches/agent_cost.sh)
#
# About an hour on 2 cores with nothing else running (3 December: 32 min of release build,
# 7 min of criterion, 3 min of callgrind, 12 min of compiling the 100-tool crates). Other
# builds on the machine make it much longer and its times noisy. Needs valgrind, hyperfine
# and GNU time (apt-get install valgrind hyperfine time).
#
#   benches/run.sh
#   SKIP_COMPILE=1 benches/run.sh      # everything but the compile cost
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-target/bench-run}
mkdir -p "$out"
export TOOLSET_BENCH_LARGE=1 CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never

step() { printf '== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)" | tee -a "$out/meta.txt"; }

{
    echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
    rustc -V
    echo "load before: $(uptime)"
} >"$out/meta.txt"

step "release build"
cargo build --release -p toolset-benches --bins --benches

step "criterion"
rm -rf target/criterion
cargo bench -p toolset-benches --benches 2>&1 | tee "$out/criterion.log" | grep -E '^[a-z_/]+/[0-9a-z_]+' || true
python3 benches/summarize.py >"$out/criterion.md"

step "callgrind"
python3 benches/instructions.py --json "$out/instructions.json" >"$out/instructions.md"

step "memory"
benches/memory.sh >"$out/memory.txt"

step "Rejected::results at 7,500 to 60,000 invalid calls"
target/release/rejected_results >"$out/rejected.txt"

step "MCP HTTP load"
target/release/mcp_load 200 20 >"$out/load.txt"

if [ -z "${SKIP_COMPILE:-}" ]; then
    step "compile cost"
    RUNS=${COMPILE_RUNS:-3} benches/compile_cost.sh >"$out/compile.txt"
    step "a newcomer-sized agent"
    RUNS=${COMPILE_RUNS:-3} benches/agent_cost.sh >"$out/agent.txt"
fi

step "done"
echo "load after: $(uptime)" >>"$out/meta.txt"
