"""The SDKs' own types on programmatic tool calling: who may call a tool, who made a call,
and where its result goes.

    python3 tests/validators/validate_callers.py CALLERS.json

CALLERS.json is what tests/tests/from_code.rs writes: {"<kind>": [value, ...]} with

- anthropic_tools: tools of a request with code execution (`Request::code_execution`),
  each an anthropic ToolParam (pydantic's TypeAdapter, strict), its `allowed_callers`
  one of the SDK's literals;
- openai_responses_tools: likewise, each an openai Responses FunctionToolParam;
- anthropic_messages: the recorded responses (tests/fixtures/providers/anthropic_code_*),
  each an anthropic Message, every `tool_use` caller one of the SDK's caller models;
- anthropic_replies: the user message answering them (`anthropic::results`), an anthropic
  MessageParam of `tool_result` blocks only, as programmatic tool calling requires;
- openai_responses: the recorded responses (openai_responses_program_*), each an openai
  Response, every `function_call` caller one of the SDK's caller models;
- openai_responses_inputs: the next request's input (the response's output items as
  they were, then `openai_responses::results`), an openai ResponseInputParam; a
  TypedDict ignores keys it does not know, so each `function_call_output` and its
  `caller` must also have only the keys of the SDK's type.

Before judging, every validator must reject a deliberately bad sample, so no verdict can
pass vacuously. Prints one line per problem and a verdict line per validator; exits 1 if
any value fails, 2 if a self-check does.
"""

import json
import sys

import pydantic
from anthropic.types import DirectCaller, Message, MessageParam, ServerToolCaller
from anthropic.types import ServerToolCaller20260120, ToolParam
from openai.types.responses import FunctionToolParam, Response, ResponseInputParam
from openai.types.responses.response_function_tool_call import CallerDirect, CallerProgram
from openai.types.responses.response_input_item_param import (
    FunctionCallOutput,
    FunctionCallOutputCallerProgram,
)


def problem_of(check, value):
    """The message `check` raises for `value`, or None when it passes."""
    try:
        check(value)
        return None
    except Exception as error:  # every validator's own error type
        return str(error).splitlines()[0] if str(error) else type(error).__name__


ANTHROPIC_TOOL = pydantic.TypeAdapter(ToolParam)
OPENAI_TOOL = pydantic.TypeAdapter(FunctionToolParam)
ANTHROPIC_MESSAGE_PARAM = pydantic.TypeAdapter(MessageParam)
OPENAI_INPUT = pydantic.TypeAdapter(ResponseInputParam)


def check_anthropic_tool(tool):
    ANTHROPIC_TOOL.validate_python(tool, strict=True)
    if "allowed_callers" not in tool:
        raise ValueError("no allowed_callers")


def check_openai_tool(tool):
    OPENAI_TOOL.validate_python(tool, strict=True)
    if "allowed_callers" not in tool:
        raise ValueError("no allowed_callers")


def check_anthropic_message(message):
    parsed = Message.model_validate(message)
    known = (DirectCaller, ServerToolCaller, ServerToolCaller20260120)
    for block in parsed.content:
        if block.type == "tool_use" and block.caller is not None:
            if not isinstance(block.caller, known):
                raise ValueError(f"{block.id}: caller {block.caller!r} is no SDK caller")


def check_anthropic_reply(message):
    ANTHROPIC_MESSAGE_PARAM.validate_python(message)
    if message.get("role") != "user":
        raise ValueError("not a user message")
    for block in message["content"]:
        if block.get("type") != "tool_result":
            raise ValueError(f"a {block.get('type')} block beside the tool results")


def check_openai_response(response):
    parsed = Response.model_validate(response)
    for item in parsed.output:
        if item.type == "function_call" and item.caller is not None:
            if not isinstance(item.caller, (CallerDirect, CallerProgram)):
                raise ValueError(f"{item.call_id}: caller {item.caller!r} is no SDK caller")


def only_keys(value, typed, what):
    extra = set(value) - set(typed.__annotations__)
    if extra:
        raise ValueError(f"{what} has keys the SDK's type lacks: {sorted(extra)}")


def check_openai_input(items):
    OPENAI_INPUT.validate_python(items)
    for item in items:
        if item.get("type") == "function_call_output":
            only_keys(item, FunctionCallOutput, "a function_call_output")
            if "caller" in item:
                only_keys(item["caller"], FunctionCallOutputCallerProgram, "its caller")
                if item["caller"].get("type") != "program":
                    raise ValueError(f"caller type {item['caller'].get('type')!r}")


SCHEMA = {"type": "object", "properties": {}}
# (validator, kind it reads, its check, a sample it must reject)
VALIDATORS = [
    (
        "anthropic ToolParam",
        "anthropic_tools",
        check_anthropic_tool,
        {"name": "bad", "input_schema": SCHEMA, "allowed_callers": ["direct", "programmatic"]},
    ),
    (
        "openai FunctionToolParam",
        "openai_responses_tools",
        check_openai_tool,
        {
            "type": "function",
            "name": "bad",
            "parameters": SCHEMA,
            "strict": False,
            "allowed_callers": ["direct", "code_execution_20260120"],
        },
    ),
    (
        "anthropic Message",
        "anthropic_messages",
        check_anthropic_message,
        {
            "id": "msg_bad",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_bad",
                    "name": "bad",
                    "input": {},
                    "caller": {"type": "program", "caller_id": "x"},
                }
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    ),
    (
        "anthropic MessageParam",
        "anthropic_replies",
        check_anthropic_reply,
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                {"type": "text", "text": "and another thing"},
            ],
        },
    ),
    (
        "openai Response",
        "openai_responses",
        check_openai_response,
        {
            "id": "resp_bad",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5.5",
            "output": [
                {
                    "type": "function_call",
                    "call_id": "c",
                    "name": "bad",
                    "arguments": "{}",
                    "caller": {"type": "code_execution_20260120", "tool_id": "x"},
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        },
    ),
    (
        "openai ResponseInputParam",
        "openai_responses_inputs",
        check_openai_input,
        [
            {
                "type": "function_call_output",
                "call_id": "c",
                "output": "ok",
                "caller": {"type": "program", "caller_id": "p", "fingerprint": "moved"},
            }
        ],
    ),
]


def main():
    with open(sys.argv[1]) as file:
        given = json.load(file)
    failed = False
    for name, kind, check, bad in VALIDATORS:
        if problem_of(check, bad) is None:
            print(f"{name}: self-check failed, a bad sample passed")
            sys.exit(2)
        values = given.get(kind, [])
        rejected = 0
        for index, value in enumerate(values):
            problem = problem_of(check, value)
            if problem is not None:
                rejected += 1
                print(f"{kind}[{index}]: {name}: {problem}")
        failed |= rejected > 0
        print(f"{name} verdict ({kind}): {len(values)} judged, {rejected} rejected")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
