#!/usr/bin/env python3
"""Instructions per call of every instruction-count row of BENCHMARKS.md, by callgrind.

Each measurement runs a release benchmark binary under `valgrind --tool=callgrind` at two
iteration counts; the difference of the two totals, divided by the extra calls, is one
call's cost with the set-up (building the set, the runtime, the first renders) cancelled.
Instruction counts do not depend on the load of the machine, so these rows can be read
exactly, where the criterion times can only be read as ratios.

Needs the binaries built first, with the 1000-tool sets for N = 1000:

    TOOLSET_BENCH_LARGE=1 cargo build --release -p toolset-benches --bins
    python3 benches/instructions.py [--sizes 10,100,1000] [--json OUT.json]

Prints Markdown tables; `--json` also writes every figure (with the raw totals).
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

from summarize import table  # the same Markdown table writer (benches/summarize.py)

BIN = pathlib.Path("target/release")
REFS = re.compile(r"refs:\s+([\d,]+)")


def valgrind(options, binary, args):
    """The summary valgrind (with `options`) writes to stderr for one run of `binary args`;
    exits naming the command if the run fails. Also used by benches/cachesim.py."""
    command = ["valgrind", *options, str(BIN / binary), *map(str, args)]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return run.stderr


def refs(binary, args, options=()):
    """The instructions callgrind counted for one run of `binary args`, with callgrind's
    extra `options` (e.g. `--toggle-collect=…`, to count only inside some functions)."""
    summary = valgrind(
        ["--tool=callgrind", "--callgrind-out-file=/dev/null", *options], binary, args
    )
    found = REFS.search(summary)
    if not found:
        sys.exit(f"no instruction count in callgrind's output for {binary} {args}")
    return int(found.group(1).replace(",", ""))


def per_call(binary, before, after, low, high, calls_per_iteration, options=()):
    """Instructions of one call: `binary before.. low ..after` against `.. high ..`."""
    lo = refs(binary, [*before, low, *after], options)
    hi = refs(binary, [*before, high, *after], options)
    return {
        "per_call": (hi - lo) / ((high - low) * calls_per_iteration),
        "refs": [lo, hi],
        "iterations": [low, high],
    }


# What a driver's turn spends in its store: saving the run (serializing it and the
# store's write), the journal's start (the call's idempotency key, the store's write) and
# end, gathering and marking what was delivered, and freeing what it kept.
STORE_FUNCTIONS = [
    f"--toggle-collect={pattern}"
    for pattern in [
        "toolset::run::Runs*::save",
        "toolset::apply::journal_start",
        "toolset::apply::journal_end",
        "toolset::run::Run::delivered",
        "toolset::run::Run::collect*",
        # The store's entries freed when it is dropped: a `MemoryStore` keeps every
        # run and journal entry, so its drop at the end grows with the calls made.
        "core::ptr::drop_in_place<toolset::store::memory::MemoryStore>",
    ]
]


def measure(sizes):
    results = {}

    def record(key, value):
        results[key] = value
        print(f"  {key}: {value['per_call']:,.1f}", file=sys.stderr, flush=True)

    for n in sizes:
        # gate + apply and the floor, a 1-call program (1,200 - 200 iterations) and a
        # 100-call program (25 - 5 iterations): `gate_cost <workload> <iterations> <n> <calls>`.
        for workload in ["gate_apply", "gate", "hand", "hand_each"]:
            record(
                f"gate_cost/{workload}/{n}/1",
                per_call("gate_cost", [workload], [n, 1], 200, 1200, 1),
            )
            record(
                f"gate_cost/{workload}/{n}/100",
                per_call("gate_cost", [workload], [n, 100], 5, 25, 100),
            )
        # The MCP server in process and over a duplex pipe, 16 calls an iteration, and one
        # `tools/list` an iteration: `mcp_cost <workload> <server> <n> <iterations>`.
        for server in ["toolset", "rmcp"]:
            for workload in ["call", "round_trip"]:
                record(
                    f"mcp_cost/{workload}/{server}/{n}",
                    per_call("mcp_cost", [workload, server, n], [], 5, 25, 16),
                )
            record(
                f"mcp_cost/list/{server}/{n}",
                per_call("mcp_cost", ["list", server, n], [], 20, 220, 1),
            )
    # One call through the conversation driver over a MemoryStore against gate + apply
    # alone: `driver_cost <workload> <iterations> <n>` (`turn` minus `prepare` is the call),
    # and the store's share of each, counted only inside the functions that make the
    # store's round trips (none of them calls another).
    for n in [size for size in sizes if size in (10, 100)]:
        for workload in ["gate_apply", "gate_apply_answer", "turn", "prepare"]:
            record(
                f"driver_cost/{workload}/{n}",
                per_call("driver_cost", [workload], [n], 200, 1200, 1),
            )
            record(
                f"driver_cost/{workload}/{n}/store",
                per_call("driver_cost", [workload], [n], 200, 1200, 1, STORE_FUNCTIONS),
            )
    # Typed dispatch and gate + apply at 100 tools, without and with an OpenTelemetry
    # subscriber recording the spans: `trace_cost <workload> <subscriber> <iterations>`
    # (dispatch: 16 calls an iteration; gate_apply: a 10-call program).
    for workload, calls in [("dispatch", 16), ("gate_apply", 10)]:
        for subscriber in ["none", "otel"]:
            record(
                f"trace_cost/{workload}/{subscriber}",
                per_call("trace_cost", [workload, subscriber], [], 100, 600, calls),
            )
    return results


def report(results, sizes):
    def get(key):
        value = results.get(key)
        return None if value is None else value["per_call"]

    def num(value):
        return "–" if value is None else f"{value:,.0f}"

    def ratio(a, b):
        return "–" if a is None or b is None else f"{a / b:.2f}x"

    print("### gate + apply against the floor (instructions per call)\n")
    rows = []
    for calls in ["1", "100"]:
        for n in sizes:
            t = get(f"gate_cost/gate_apply/{n}/{calls}")
            g = get(f"gate_cost/gate/{n}/{calls}")
            h = get(f"gate_cost/hand/{n}/{calls}")
            e = get(f"gate_cost/hand_each/{n}/{calls}")
            rows.append([calls, str(n), num(t), num(g), num(h), num(e), ratio(t, h), ratio(t, e)])
    table(
        [
            "calls in the program", "tools", "gate + apply", "gate alone",
            "floor (hand: parse all, then run)", "bare floor (hand_each: parse and run, call by call)",
            "gate + apply / floor", "gate + apply / bare floor",
        ],
        rows,
    )

    print("### MCP server against rmcp's cached router and server (instructions per request)\n")
    rows = []
    for workload, what in [
        ("call", "in-process `tools/call`"),
        ("round_trip", "round trip over a duplex pipe"),
        ("list", "in-process `tools/list`"),
    ]:
        for n in sizes:
            t = get(f"mcp_cost/{workload}/toolset/{n}")
            r = get(f"mcp_cost/{workload}/rmcp/{n}")
            rows.append([what, str(n), num(t), num(r), ratio(t, r)])
    table(["request", "tools", "toolset", "rmcp cached", "toolset / rmcp"], rows)

    print("### one call through the conversation driver (MemoryStore) against gate + apply (instructions per call)\n")
    rows = []
    for n in [size for size in sizes if size in (10, 100)]:
        g = get(f"driver_cost/gate_apply/{n}")
        a = get(f"driver_cost/gate_apply_answer/{n}")
        t, p = get(f"driver_cost/turn/{n}"), get(f"driver_cost/prepare/{n}")
        ts, ps = get(f"driver_cost/turn/{n}/store"), get(f"driver_cost/prepare/{n}/store")
        call = None if t is None or p is None else t - p
        store = None if ts is None or ps is None else ts - ps
        own = None if call is None or store is None else call - store
        rows.append([
            str(n), num(g), num(a), num(call), num(store), num(own),
            ratio(own, g), ratio(own, a),
        ])
    table(
        [
            "tools", "gate + apply", "gate + apply + answer message", "driver call (turn - prepare)",
            "of it in the store", "driver call, store aside",
            "store aside / gate + apply", "store aside / gate + apply + answer",
        ],
        rows,
    )

    print("### dispatch and gate + apply at 100 tools, by subscriber (instructions per call)\n")
    rows = []
    for workload in ["dispatch", "gate_apply"]:
        none = get(f"trace_cost/{workload}/none")
        otel = get(f"trace_cost/{workload}/otel")
        rows.append([workload, num(none), num(otel), num(None if none is None or otel is None else otel - none)])
    table(["workload", "no subscriber", "OpenTelemetry SDK", "difference"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000", help="set sizes, comma-separated")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--from-json", help="print the tables of an earlier --json instead of measuring")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.from_json:
        results = json.loads(pathlib.Path(args.from_json).read_text())
    else:
        results = measure(sizes)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    report(results, sizes)


if __name__ == "__main__":
    main()
