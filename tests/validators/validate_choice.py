"""The SDKs' own types on every tool choice a rendering holds.

    python3 tests/validators/validate_choice.py CHOICES.json

CHOICES.json is what tests/tests/render_validators.rs writes for the tool choices
(`Request::tool_choice`, `Request::fixed_tools`): {"<format>": [choice, ...]} for the
formats that have one. Each validator is the provider SDK's own type:

- openai (Chat Completions): pydantic's TypeAdapter of the SDK's
  ChatCompletionToolChoiceOptionParam, strict; a TypedDict ignores keys it does not know,
  so each object's keys must also be exactly those of the SDK's type it is
  (ChatCompletionAllowedToolChoiceParam, ChatCompletionAllowedToolsParam), and each
  allowed tool a ChatCompletionNamedToolChoiceParam, `{"type": "function", "function":
  {"name": ...}}`, by the same check;
- openai (Responses): the same with the Responses `tool_choice` union
  (`openai.types.responses.response_create_params.ToolChoice`) and its
  ToolChoiceAllowedParam, each allowed tool a ToolChoiceFunctionParam, `{"type":
  "function", "name": ...}`, or the `{"type": "tool_search"}` of the list's search, or a
  toolbox namespace's `{"type": "namespace", "name": ..., "tools": [<function>, ...]}`
  (the SDK types an allowed tool as any object; this holds the namespace to the stripped
  definition toolset renders, each of its tools a ToolChoiceFunctionParam);
- anthropic (mid-conversation tool changes, `Request::tool_changes`): each block is a
  BetaRequestToolAdditionBlockParam or BetaRequestToolRemovalBlockParam, strict, with
  exactly that type's keys and a BetaToolChangeToolReferenceParam tool; each tool of the
  fixed list a ToolParam, strict, with only ToolParam's keys (`defer_loading` included);
- google-genai: types.ToolConfig (extra keys forbidden), its keys in the wire's camelCase
  (each field's alias), the mode spelled as the enum spells it (the SDK reads it case-
  insensitively, the API does not promise to), and `allowedFunctionNames` only with mode
  ANY or VALIDATED, as the SDK's FunctionCallingConfigMode documents.

Before judging, every validator must reject a deliberately bad sample, so no verdict can
pass vacuously. Prints one line per problem and a verdict line per validator; exits 1 if
any choice fails, 2 if a self-check does.
"""

import json
import sys
import warnings

import pydantic
from anthropic.types import ToolParam as AnthropicToolParam
from anthropic.types.beta import (
    BetaRequestToolAdditionBlockParam,
    BetaRequestToolRemovalBlockParam,
)
from anthropic.types.beta.beta_tool_change_tool_reference_param import (
    BetaToolChangeToolReferenceParam,
)
from google.genai import types as genai
from openai.types.chat import (
    ChatCompletionAllowedToolChoiceParam,
    ChatCompletionAllowedToolsParam,
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionToolChoiceOptionParam,
)
from openai.types.chat.chat_completion_named_tool_choice_param import Function
from openai.types.responses import ToolChoiceAllowedParam, ToolChoiceFunctionParam
from openai.types.responses.response_create_params import ToolChoice as ResponsesToolChoice


def problem_of(check, value):
    """The message `check` raises for `value`, or None when it passes."""
    try:
        check(value)
        return None
    except Exception as error:  # every validator's own error type
        return str(error).splitlines()[0] if str(error) else type(error).__name__


def exact_keys(value, typed_dict, where):
    """`value` is an object with every required key of `typed_dict` and no other key."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: not an object")
    known = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    unknown = set(value) - known
    missing = typed_dict.__required_keys__ - set(value)
    if unknown or missing:
        raise ValueError(
            f"{where}: keys {sorted(unknown)} are not {typed_dict.__name__}'s, "
            f"{sorted(missing)} missing"
        )


CHAT = pydantic.TypeAdapter(ChatCompletionToolChoiceOptionParam)
CHAT_TOOL = pydantic.TypeAdapter(ChatCompletionNamedToolChoiceParam)
RESPONSES = pydantic.TypeAdapter(ResponsesToolChoice)
RESPONSES_TOOL = pydantic.TypeAdapter(ToolChoiceFunctionParam)


def check_openai_chat(choice):
    CHAT.validate_python(choice, strict=True)
    if isinstance(choice, str):
        return
    exact_keys(choice, ChatCompletionAllowedToolChoiceParam, "tool_choice")
    allowed = choice["allowed_tools"]
    exact_keys(allowed, ChatCompletionAllowedToolsParam, "allowed_tools")
    if not allowed["tools"]:
        raise ValueError("allowed_tools.tools is empty")
    for index, tool in enumerate(allowed["tools"]):
        CHAT_TOOL.validate_python(tool, strict=True)
        exact_keys(tool, ChatCompletionNamedToolChoiceParam, f"tools[{index}]")
        exact_keys(tool["function"], Function, f"tools[{index}].function")


def check_openai_responses(choice):
    RESPONSES.validate_python(choice, strict=True)
    if isinstance(choice, str):
        return
    exact_keys(choice, ToolChoiceAllowedParam, "tool_choice")
    if choice.get("type") != "allowed_tools":
        raise ValueError(f"tool_choice type {choice.get('type')!r} is not allowed_tools")
    if not choice["tools"]:
        raise ValueError("tools is empty")
    for index, tool in enumerate(choice["tools"]):
        if tool == {"type": "tool_search"}:
            continue
        if isinstance(tool, dict) and tool.get("type") == "namespace":
            check_namespace_choice(tool, f"tools[{index}]")
            continue
        RESPONSES_TOOL.validate_python(tool, strict=True)
        exact_keys(tool, ToolChoiceFunctionParam, f"tools[{index}]")


def check_namespace_choice(entry, where):
    """A namespace's permitted tools: `{"type": "namespace", "name", "tools"}`, each tool a
    ToolChoiceFunctionParam by its name inside the namespace."""
    if set(entry) != {"type", "name", "tools"}:
        raise ValueError(f"{where}: keys {sorted(entry)} are not type, name and tools")
    if not isinstance(entry["name"], str) or not entry["name"]:
        raise ValueError(f"{where}: the namespace has no name")
    tools = entry["tools"]
    if not isinstance(tools, list) or not tools:
        raise ValueError(f"{where}: tools is not a non-empty array")
    for index, tool in enumerate(tools):
        RESPONSES_TOOL.validate_python(tool, strict=True)
        exact_keys(tool, ToolChoiceFunctionParam, f"{where}.tools[{index}]")


ANTHROPIC_BLOCKS = {
    "tool_addition": (
        pydantic.TypeAdapter(BetaRequestToolAdditionBlockParam),
        BetaRequestToolAdditionBlockParam,
    ),
    "tool_removal": (
        pydantic.TypeAdapter(BetaRequestToolRemovalBlockParam),
        BetaRequestToolRemovalBlockParam,
    ),
}
ANTHROPIC_TOOL_REFERENCE = pydantic.TypeAdapter(BetaToolChangeToolReferenceParam)
ANTHROPIC_TOOL = pydantic.TypeAdapter(AnthropicToolParam)


def check_anthropic_change(block):
    kind = block.get("type") if isinstance(block, dict) else None
    if kind not in ANTHROPIC_BLOCKS:
        raise ValueError(f"type {kind!r} is neither tool_addition nor tool_removal")
    adapter, typed_dict = ANTHROPIC_BLOCKS[kind]
    adapter.validate_python(block, strict=True)
    exact_keys(block, typed_dict, kind)
    ANTHROPIC_TOOL_REFERENCE.validate_python(block["tool"], strict=True)
    exact_keys(block["tool"], BetaToolChangeToolReferenceParam, f"{kind}.tool")


def check_anthropic_fixed_tool(tool):
    ANTHROPIC_TOOL.validate_python(tool, strict=True)
    if not isinstance(tool, dict):
        raise ValueError("not an object")
    known = AnthropicToolParam.__required_keys__ | AnthropicToolParam.__optional_keys__
    unknown = set(tool) - known
    if unknown:
        raise ValueError(f"keys {sorted(unknown)} are not ToolParam's")


def check_aliases(value, model, where):
    """Every key of `value` is the wire (camelCase) alias of one of `model`'s fields."""
    aliases = {field.alias or name for name, field in model.model_fields.items()}
    for key in value:
        if key not in aliases:
            raise ValueError(f"{where}: {key!r} is not a wire name of {model.__name__}")


MODES = {mode.value for mode in genai.FunctionCallingConfigMode} - {"MODE_UNSPECIFIED"}


def check_gemini(tool_config):
    # google-genai only warns about some values it does not know; here they are errors.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        genai.ToolConfig.model_validate(tool_config)
    check_aliases(tool_config, genai.ToolConfig, "toolConfig")
    config = tool_config.get("functionCallingConfig")
    if not isinstance(config, dict):
        raise ValueError("no functionCallingConfig")
    check_aliases(config, genai.FunctionCallingConfig, "functionCallingConfig")
    mode = config.get("mode")
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {sorted(MODES)} as spelled")
    names = config.get("allowedFunctionNames")
    if names is not None:
        if mode not in ("ANY", "VALIDATED"):
            raise ValueError(f"allowedFunctionNames with mode {mode}: only ANY or VALIDATED")
        if not names:
            raise ValueError("allowedFunctionNames is empty")


# (validator, format, its check, bad samples it must reject)
VALIDATORS = [
    (
        "openai",
        "openai_chat",
        check_openai_chat,
        [
            # Responses' shape sent to Chat.
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "a"}]},
            # A key the SDK's type does not have.
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "auto",
                    "tools": [{"type": "function", "function": {"name": "a"}, "strict": True}],
                },
            },
            "any",
        ],
    ),
    (
        "openai",
        "openai_responses",
        check_openai_responses,
        [
            # Chat's shape sent to Responses.
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "auto",
                    "tools": [{"type": "function", "function": {"name": "a"}}],
                },
            },
            {"type": "allowed_tools", "mode": "sometimes", "tools": [{"type": "function", "name": "a"}]},
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "function": {"name": "a"}}]},
            # A namespace naming no tool, or its tools in Chat's shape.
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "namespace", "name": "fix", "tools": []}]},
            {
                "type": "allowed_tools",
                "mode": "auto",
                "tools": [
                    {"type": "namespace", "name": "fix", "tools": [{"type": "function", "function": {"name": "a"}}]}
                ],
            },
        ],
    ),
    (
        "anthropic",
        "anthropic_changes",
        check_anthropic_change,
        [
            {"type": "tool_addition", "name": "a"},
            {"type": "tool_addition", "tool": {"type": "tool_reference"}},
            {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "a", "id": 1}},
            {"type": "tool_swap", "tool": {"type": "tool_reference", "name": "a"}},
        ],
    ),
    (
        "anthropic",
        "anthropic_fixed_tools",
        check_anthropic_fixed_tool,
        [
            {"name": "a", "input_schema": {"type": "object"}, "defer_loading": "yes"},
            {"name": "a", "input_schema": {"type": "object"}, "deferred": True},
            {"name": "a"},
        ],
    ),
    (
        "google-genai",
        "gemini",
        check_gemini,
        [
            {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["a"]}},
            {"functionCallingConfig": {"mode": "validated", "allowedFunctionNames": ["a"]}},
            {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["a"]}},
            {"functionCallingConfig": {"mode": "ANY", "allowedFunctions": ["a"]}},
        ],
    ),
]


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        rendered = json.load(file)
    for name, format_, check, samples in VALIDATORS:
        for sample in samples:
            if problem_of(check, sample) is None:
                print(f"{name} self-check: accepted a bad {format_} choice: {json.dumps(sample)}")
                sys.exit(2)

    totals = {}
    failed = 0
    for name, format_, check, _ in VALIDATORS:
        for choice in rendered.get(format_, []):
            totals.setdefault(name, [0, 0])[0] += 1
            why = problem_of(check, choice)
            if why is not None:
                totals[name][1] += 1
                failed += 1
                print(f"{name}: {format_} {json.dumps(choice)[:200]}: {why}")
    for name, (checked, rejected) in totals.items():
        print(f"{name} choice verdict: {checked} choices, {rejected} rejected")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
