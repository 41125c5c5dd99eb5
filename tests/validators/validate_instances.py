"""Python's jsonschema judging argument instances against rendered schemas.

    python3 tests/validators/validate_instances.py CASES.json

CASES.json is what a Rust test writes: [{"label": str, "schema": {...}, "instance": ...}],
each instance one the schema must accept. Python's json module reads an integer exactly,
whatever its size (`340282366920938463463374607431768211455` stays u128::MAX, unlike a
double), so this judges a 128-bit extreme as the number the model wrote.

Before judging, the validator must refuse a deliberately bad instance, so no verdict can
pass by accepting everything. Prints one line per refused case and a verdict line; exits
1 if any case is refused, 2 if the self-check fails.
"""

import json
import sys

import jsonschema


def main():
    bad = jsonschema.Draft202012Validator({"type": "integer", "maximum": 2**128})
    if bad.is_valid(2**128 + 1):
        print("self-check failed: 2^128 + 1 passed maximum 2^128")
        return 2
    with open(sys.argv[1], encoding="utf-8") as file:
        cases = json.load(file)
    refused = 0
    for case in cases:
        validator = jsonschema.Draft202012Validator(case["schema"])
        errors = [error.message for error in validator.iter_errors(case["instance"])]
        if errors:
            refused += 1
            print(f"{case['label']}: refused: {'; '.join(errors)}")
    print(f"jsonschema (Python): {len(cases) - refused} of {len(cases)} accepted")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
