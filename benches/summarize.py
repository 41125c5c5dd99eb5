#!/usr/bin/env python3
"""Prints the Markdown tables of BENCHMARKS.md from criterion's results.

Reads target/criterion/**/new/{benchmark,estimates}.json (written by the last
`cargo bench -p toolset-benches` run) and reports each benchmark's median, per call
where the benchmark makes several calls, with ratios against the hand-written floor.

    python3 benches/summarize.py [target/criterion]
"""

import json
import pathlib
import sys

CALLS = 16  # calls per dispatch iteration (toolset_benches::CALLS)


def load(root):
    results = {}
    for bench in pathlib.Path(root).glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        key = (meta["group_id"], meta["function_id"], meta.get("value_str"))
        results[key] = estimates["median"]["point_estimate"]
    return results


def fmt(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def ratio(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}x"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def main():
    results = load(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")

    def get(group, function, value, per=1):
        ns = results.get((group, function, value))
        return None if ns is None else ns / per

    print("### dispatch (per call; median of 16-call iterations / 16)\n")
    impls = ["hand", "toolset", "toolset_gate_apply", "rmcp_cached", "rmcp_default"]
    rows = []
    for n in ["10", "100", "1000"]:
        v = {i: get("dispatch", i, n, CALLS) for i in impls}
        rows.append(
            [n]
            + [fmt(v[i]) for i in impls]
            + [ratio(v[i], v["hand"]) for i in impls[1:]]
        )
    table(
        ["tools"]
        + impls
        + [f"{i} / hand" for i in impls[1:]],
        rows,
    )

    def by_size(title, group, impls, per, baseline):
        """A table of `group`'s medians per set size, each divided by `per`, with every
        implementation's ratio to `baseline`."""
        print(f"### {title}\n")
        others = [i for i in impls if i != baseline]
        rows = []
        for n in ["10", "100", "1000"]:
            v = {i: get(group, i, n, per) for i in impls}
            if all(x is None for x in v.values()):
                continue
            rows.append([n] + [fmt(v[i]) for i in impls] + [ratio(v[i], v[baseline]) for i in others])
        table(["tools"] + impls + [f"{i} / {baseline}" for i in others], rows)

    by_size(
        "mcp_call (in-process `tools/call`, per call; median of 16-call iterations / 16)",
        "mcp_call", ["rmcp_cached", "toolset"], CALLS, "rmcp_cached",
    )
    by_size("mcp_list (in-process `tools/list`)", "mcp_list", ["rmcp_cached", "toolset"], 1, "rmcp_cached")
    by_size(
        "mcp_round_trip (one `tools/call` through rmcp's client over a duplex pipe)",
        "mcp_round_trip", ["rmcp_cached", "toolset", "rmcp"], 1, "rmcp_cached",
    )
    by_size(
        "program_100_calls (a 100-call program, per call)",
        "program_100_calls", ["hand", "hand_each", "toolset_gate_apply"], 100, "hand",
    )

    print("### tool_list_cached (MCP list, after the first render)\n")
    table(
        ["tools", "toolset cached"],
        [[n, fmt(get("tool_list_cached", "toolset_mcp", n))] for n in ["10", "100", "1000"]],
    )

    print("### tool_list (100 tools)\n")
    rows = []
    for fmt_name in ["openai_chat", "anthropic", "gemini", "mcp"]:
        group = f"tool_list/{fmt_name}"
        v = {
            i: get(group, i, "100")
            for i in ["toolset_cached", "toolset_render", "rmcp_cached", "rmcp_default"]
        }
        rows.append([fmt_name] + [fmt(v[i]) for i in v])
    table(["format", "toolset cached", "toolset render (uncached)", "rmcp cached router", "rmcp default"], rows)

    print("### compose (100 tools, 5 activated, 3 history names)\n")
    rows = []
    for fmt_name in sorted({g.split("/", 1)[1] for (g, _, _) in results if g.startswith("compose/")}):
        group = f"compose/{fmt_name}"
        rows.append([fmt_name, fmt(get(group, "request_list", "100")), fmt(get(group, "cached_list", "100"))])
    table(["format", "request's list", "cached fixed list"], rows)

    print("### program (100-tool set; gate + apply vs hand-written parse-all-then-run-all)\n")
    rows = []
    for n in ["1", "10", "100", "1000"]:
        t = get("program", "toolset_gate_apply", n)
        g = get("program", "toolset_gate", n)
        h = get("program", "hand", n)
        e = get("program", "hand_each", n)
        k = int(n)
        rows.append(
            [
                n,
                fmt(t),
                fmt(None if t is None else t / k),
                fmt(None if g is None else g / k),
                fmt(h),
                fmt(None if h is None else h / k),
                fmt(None if e is None else e / k),
                ratio(t, h),
                ratio(t, e),
            ]
        )
    table(
        ["calls", "toolset total", "toolset / call", "gate alone / call", "hand total", "hand / call", "hand_each / call", "toolset / hand", "toolset / hand_each"],
        rows,
    )

    for group in ["toolbox", "proxy_round_trip"]:
        functions = sorted(f for (g, f, _) in results if g == group)
        if functions:
            print(f"### {group}\n")
            table(["benchmark", "median"], [[f, fmt(get(group, f, None))] for f in functions])


if __name__ == "__main__":
    main()
