#!/usr/bin/env python3
"""Cache misses and branch mispredictions per call, by cachegrind's simulation.

Where the criterion time ratios are larger than the instruction ratios, this says why:
runs a release benchmark binary under `valgrind --tool=cachegrind --cache-sim=yes
--branch-sim=yes` at two iteration counts and prints the difference divided by the extra
calls, so the set-up cancels out as it does in benches/instructions.py. The simulated
caches are the host's (cachegrind reads them from the CPU); the counts do not depend on the
machine's load.

    python3 benches/cachesim.py CALLS_PER_ITERATION LOW HIGH BINARY ARGS...

where ARGS holds `{}` in the place of the iteration count, e.g.

    python3 benches/cachesim.py 1 200 1200 gate_cost gate_apply {} 100 1
    python3 benches/cachesim.py 100 5 25 gate_cost hand {} 100 100
"""

import re
import sys

from instructions import valgrind  # runs valgrind, exits naming a failed command
from profile import per_call_differences  # LOW and HIGH runs, per extra call

# The summary lines cachegrind writes to stderr, by the name printed here.
COUNTS = {
    "instructions": r"I\s+refs:\s+([\d,]+)",
    "L1 instruction misses": r"I1\s+misses:\s+([\d,]+)",
    "L1 data misses": r"D1\s+misses:\s+([\d,]+)",
    "last-level data misses": r"LLd\s+misses:\s+([\d,]+)",
    "branches": r"Branches:\s+([\d,]+)",
    "mispredicted": r"Mispredicts:\s+([\d,]+)",
}


def counts(binary, args):
    """Every count of `COUNTS` for one run of `binary args`."""
    summary = valgrind(
        [
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--branch-sim=yes",
            "--cachegrind-out-file=/dev/null",
        ],
        binary,
        args,
    )
    found = {}
    for name, pattern in COUNTS.items():
        match = re.search(pattern, summary)
        if not match:
            sys.exit(f"no '{name}' in cachegrind's output for {binary} {args}")
        found[name] = int(match.group(1).replace(",", ""))
    return found


def main():
    per_call = per_call_differences(counts, __doc__)
    for name in COUNTS:
        print(f"{per_call[name]:>12,.1f}  {name} per call")


if __name__ == "__main__":
    main()
