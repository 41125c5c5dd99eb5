"""The openai SDK's request types on a recorded OpenAI Responses exchange.

    python3 tests/validators/validate_exchange.py REQUESTS.json

REQUESTS.json is what tests/tests/async_tools.rs writes: a JSON array of request bodies
({"model", "input", "tools"}) as the driver composed them. Each body validates as the
SDK's ResponseCreateParamsNonStreaming; each function tool, closed to unknown keys, as
FunctionToolParam (so `async` is typed as the SDK types it: a boolean on the tool); each
`function_call` input item as ResponseFunctionToolCallParam and each
`function_call_output` as the input item FunctionCallOutput, both closed too.

Before judging, a deliberately bad body (a tool's `async` a string, an output without
its `call_id` type right) must be rejected, so no verdict passes vacuously. Prints one
line per problem and a verdict; exits 1 if a request fails, 2 if the self-check does.
"""

import json
import sys

import pydantic
from openai.types.responses import FunctionToolParam, ResponseFunctionToolCallParam
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from openai.types.responses.response_input_item_param import FunctionCallOutput


def closed(typed_dict):
    """`typed_dict` refusing keys it does not declare (the SDK's TypedDicts are open)."""

    class Closed(typed_dict):
        __pydantic_config__ = pydantic.ConfigDict(extra="forbid")

    Closed.__name__ = Closed.__qualname__ = typed_dict.__name__
    return pydantic.TypeAdapter(Closed)


BODY = pydantic.TypeAdapter(ResponseCreateParamsNonStreaming)
TOOL = closed(FunctionToolParam)
CALL = closed(ResponseFunctionToolCallParam)
OUTPUT = closed(FunctionCallOutput)


def problems(body):
    found = []

    def check(adapter, value, where):
        try:
            adapter.validate_python(value, strict=True)
        except Exception as error:
            found.append(f"{where}: {str(error).splitlines()[0]}")

    check(BODY, body, "body")
    for index, tool in enumerate(body.get("tools", [])):
        if tool.get("type") == "function":
            check(TOOL, tool, f"tools[{index}] {tool.get('name')}")
    for index, item in enumerate(body.get("input", [])):
        if item.get("type") == "function_call":
            check(CALL, item, f"input[{index}] function_call")
        elif item.get("type") == "function_call_output":
            check(OUTPUT, item, f"input[{index}] function_call_output")
    return found


BAD = {
    "model": "m",
    "input": [{"type": "function_call_output", "call_id": 7, "output": "x"}],
    "tools": [
        {"type": "function", "name": "t", "parameters": {}, "strict": False, "async": "yes"}
    ],
}


def main():
    bad = problems(BAD)
    if not any("tools[0]" in line for line in bad) or not any("input[0]" in line for line in bad):
        print(f"self-check: a bad body was not rejected: {bad}")
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as file:
        requests = json.load(file)
    failed = 0
    for number, body in enumerate(requests, start=1):
        for line in problems(body):
            failed += 1
            print(f"openai: request {number} {line}")
    print(f"openai verdict: {len(requests)} requests, {failed} problems")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
