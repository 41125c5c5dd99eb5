#!/usr/bin/env python3
"""Where one call's instructions go: callgrind's self cost per function, per call.

Runs a release benchmark binary under callgrind at two iteration counts, annotates both
profiles with `callgrind_annotate`, and prints each function's self cost in the difference
divided by the extra calls, so the set-up cancels out as it does in benches/instructions.py.

    python3 benches/profile.py CALLS_PER_ITERATION LOW HIGH BINARY ARGS...

where ARGS holds `{}` in the place of the iteration count, e.g.

    python3 benches/profile.py 100 5 25 gate_cost gate_apply {} 100 100
    python3 benches/profile.py 16 5 25 mcp_cost call toolset 100 {}
"""

import collections
import pathlib
import re
import subprocess
import sys
import tempfile

BIN = pathlib.Path("target/release")
# `  1,234 (5.67%)  file:function [binary]`, the percentage and the binary optional.
LINE = re.compile(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?[^:\s]+:(.+?)(?:\s+\[[^\]]*\])?$")


def self_costs(binary, args):
    """Self instructions per function name of one run."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", str(BIN / binary), *args],
            check=True,
            capture_output=True,
        )
        annotated = subprocess.run(
            ["callgrind_annotate", "--threshold=100", "--inclusive=no", out.name],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    costs = collections.Counter()
    for line in annotated.splitlines():
        found = LINE.match(line)
        if found and "PROGRAM TOTALS" not in line:
            costs[found.group(2).strip()] += int(found.group(1).replace(",", ""))
    return costs


def per_call_differences(measure, usage):
    """Runs `measure(binary, args)` (a mapping of counts) at LOW and HIGH iterations, as the
    command line `CALLS_PER_ITERATION LOW HIGH BINARY ARGS...` says, and returns each
    count's difference per extra call. Exits with `usage` on a malformed command line.
    Also used by benches/cachesim.py."""
    if len(sys.argv) < 6:
        sys.exit(usage)
    per_iteration, low, high = (int(x) for x in sys.argv[1:4])
    binary, template = sys.argv[4], sys.argv[5:]
    if "{}" not in template:
        sys.exit("ARGS must hold {} where the iteration count goes")
    lo = measure(binary, [a.replace("{}", str(low)) for a in template])
    hi = measure(binary, [a.replace("{}", str(high)) for a in template])
    calls = (high - low) * per_iteration
    return {key: (hi.get(key, 0) - lo.get(key, 0)) / calls for key in hi.keys() | lo.keys()}


def main():
    per_call = per_call_differences(self_costs, __doc__)
    rows = sorted((cost, function) for function, cost in per_call.items())
    total = sum(cost for cost, _ in rows)
    print(f"{total:,.0f} instructions per call in all (self costs of the difference)")
    for cost, function in reversed(rows):
        if abs(cost) >= 10:
            print(f"{cost:10,.1f}  {function}")


if __name__ == "__main__":
    main()
