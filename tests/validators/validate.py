"""The Python validators on every tool a rendering holds.

    python3 tests/validators/validate.py RENDERED.json

RENDERED.json is what tests/tests/render_validators.rs writes: {"<format>": [tool, ...]}
for the JSON formats. Each validator is the consumer's own published code or the
standard's reference implementation:

- jsonschema: every JSON Schema (OpenAI parameters, Anthropic input_schema, MCP
  inputSchema/outputSchema, Gemini parametersJsonSchema) is valid against the 2020-12
  meta-schema (Draft202012Validator.check_schema);
- openai: each Chat Completions / Responses tool validates as the SDK's
  ChatCompletionFunctionToolParam (its `function` as FunctionDefinition) /
  FunctionToolParam, a Responses `output_schema` included, extra keys forbidden (a
  Responses `namespace` entry, a toolbox namespace's, as NamespaceToolParam and each of
  its tools as its ToolFunction, their keys exactly the SDK types' since a TypedDict
  ignores keys it does not know and pydantic does not iterate an Iterable's items), and a
  `strict: true` schema is a
  fixed point of the SDK's own strict-schema helper (`_ensure_strict_json_schema`, what
  `openai.pydantic_function_tool` runs): the helper adds what strict mode requires
  (`additionalProperties: false`, every property required, no `$ref` siblings), so a
  schema it changes was not strict;
- anthropic-strict: each Anthropic tool's `strict`, where present, is `true` as the
  SDK's ToolParam types it, and its `input_schema` is one the SDK's own strict transform
  (`anthropic.lib._parse._transform.transform_schema`) keeps as it is: the transform moves
  every keyword strict tool use does not support into the description and closes every
  object, so a schema in which it restates a keyword or closes an object was not strict
  (type arrays, which the API accepts and the transform does not read, are written as
  the `anyOf` they mean first);
- google-genai: each Gemini declaration validates as types.FunctionDeclaration (extra
  keys forbidden), plus the rules the API documents that the pydantic type cannot state:
  an OBJECT lists non-empty properties, parameter names match Gemini's rule, and
  `parameters` and `parametersJsonSchema` are never both set;
- anthropic: each Anthropic tool validates as the SDK's ToolParam (extra keys forbidden,
  `input_examples` included), each example an object;
- mcp: each MCP tool validates as mcp.types.Tool, its schemas `type: "object"` as the
  MCP schema requires.

Before judging, every validator must reject a deliberately bad sample, so no verdict can
pass vacuously. Prints one line per problem and a verdict line per validator; exits 1 if
any tool fails, 2 if a self-check does.
"""

import copy
import json
import re
import sys
import warnings

import anthropic.types
import jsonschema
import mcp.types
import pydantic
from anthropic.lib._parse._transform import transform_schema
from anthropic.types import ToolParam
from google.genai import types as genai
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam, NamespaceToolParam
from openai.types.responses.namespace_tool_param import ToolFunction as NamespaceFunction
from openai.types.shared_params import FunctionDefinition

GEMINI_PARAMETER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def problem_of(check, value):
    """The message `check` raises for `value`, or None when it passes."""
    try:
        check(value)
        return None
    except Exception as error:  # every validator's own error type
        return str(error).splitlines()[0] if str(error) else type(error).__name__


def check_json_schema(schema):
    jsonschema.Draft202012Validator.check_schema(schema)


def forbidding_extra_keys(typed_dict):
    """`typed_dict` as a pydantic type that refuses keys it does not declare: the SDKs'
    TypedDicts are open (pydantic ignores an unknown key), while the APIs refuse one, and
    a misspelled optional key (`output_schemas`) would otherwise pass unseen. Nested
    TypedDicts stay as the SDK declares them."""

    class Closed(typed_dict):
        __pydantic_config__ = pydantic.ConfigDict(extra="forbid")

    # Errors name the SDK's type, not this wrapper.
    Closed.__name__ = Closed.__qualname__ = typed_dict.__name__
    return pydantic.TypeAdapter(Closed)


CHAT = forbidding_extra_keys(ChatCompletionFunctionToolParam)
CHAT_FUNCTION = forbidding_extra_keys(FunctionDefinition)
RESPONSES = forbidding_extra_keys(FunctionToolParam)


def check_strict(parameters):
    fixed = _ensure_strict_json_schema(
        copy.deepcopy(parameters), path=(), root=copy.deepcopy(parameters)
    )
    if fixed != parameters:
        raise ValueError(
            "the SDK's strict helper changes the schema: "
            + json.dumps(fixed, sort_keys=True)[:300]
        )


def check_openai_chat(tool):
    CHAT.validate_python(tool, strict=True)
    CHAT_FUNCTION.validate_python(tool["function"], strict=True)
    if tool["function"].get("strict") is True:
        check_strict(tool["function"]["parameters"])


NAMESPACE = pydantic.TypeAdapter(NamespaceToolParam)
NAMESPACE_FUNCTION = pydantic.TypeAdapter(NamespaceFunction)


def exact_keys(value, typed_dict, required, where):
    """`value` has every key of `required` and no key `typed_dict` lacks (the SDK's
    `from __future__ import annotations` leaves `__required_keys__` empty, so the
    required keys are given)."""
    known = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    unknown = set(value) - known
    missing = set(required) - set(value)
    if unknown or missing:
        raise ValueError(
            f"{where}: keys {sorted(unknown)} are not {typed_dict.__name__}'s, "
            f"{sorted(missing)} missing"
        )


def check_namespace(entry):
    NAMESPACE.validate_python(entry, strict=True)
    exact_keys(entry, NamespaceToolParam, {"type", "name", "description", "tools"}, "namespace")
    tools = entry["tools"]
    if not isinstance(tools, list) or not tools:
        raise ValueError("namespace: tools is not a non-empty array")
    for index, tool in enumerate(tools):
        NAMESPACE_FUNCTION.validate_python(tool, strict=True)
        exact_keys(tool, NamespaceFunction, {"type", "name"}, f"tools[{index}]")
        if tool.get("strict") is True:
            check_strict(tool["parameters"])


def check_openai_responses(tool):
    if isinstance(tool, dict) and tool.get("type") == "namespace":
        check_namespace(tool)
        return
    RESPONSES.validate_python(tool, strict=True)
    if tool.get("strict") is True:
        check_strict(tool["parameters"])


ANTHROPIC = forbidding_extra_keys(anthropic.types.ToolParam)


def check_anthropic(tool):
    ANTHROPIC.validate_python(tool, strict=True)
    for index, example in enumerate(tool.get("input_examples", [])):
        if not isinstance(example, dict):
            raise ValueError(f"input_examples[{index}] is not an object")


# Namespace entries the Responses check must reject: no description, a tool without a
# name, a key no SDK type has, an empty namespace.
BAD_NAMESPACES = [
    {"type": "namespace", "name": "fix", "tools": [{"type": "function", "name": "echo"}]},
    {"type": "namespace", "name": "fix", "description": "d", "tools": [{"type": "function"}]},
    {
        "type": "namespace",
        "name": "fix",
        "description": "d",
        "tools": [{"type": "function", "name": "echo", "namespace": "fix"}],
    },
    {"type": "namespace", "name": "fix", "description": "d", "tools": []},
]


ANTHROPIC_TOOL = pydantic.TypeAdapter(ToolParam)

# The keywords that apply to one JSON type, kept on its branch when a type array is
# written as an `anyOf`.
BY_TYPE = {
    "object": ["properties", "required", "additionalProperties"],
    "array": ["items", "minItems"],
    "string": ["format"],
}


def without_type_arrays(node):
    """`node` with every `type` array written as the `anyOf` it means (an `enum` says the
    type itself, so its type array is dropped)."""
    if isinstance(node, list):
        return [without_type_arrays(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: without_type_arrays(value) for key, value in node.items()}
    types = node.get("type")
    if isinstance(types, list):
        del node["type"]
        if "enum" not in node and "const" not in node:
            branches = []
            for type_ in types:
                branch = {"type": type_}
                for key in BY_TYPE.get(type_, []):
                    if key in node:
                        branch[key] = node[key]
                branches.append(branch)
            for key in {key for keys in BY_TYPE.values() for key in keys}:
                node.pop(key, None)
            node["anyOf"] = branches
    return node


def schema_facts(node, descriptions, closed):
    """Every description in `node`, and how many objects it closes."""
    if isinstance(node, list):
        for item in node:
            schema_facts(item, descriptions, closed)
    elif isinstance(node, dict):
        if isinstance(node.get("description"), str):
            descriptions.add(node["description"])
        if node.get("additionalProperties") is False:
            closed[0] += 1
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                for child in value.values():
                    schema_facts(child, descriptions, closed)
            elif key != "enum" and key != "const":
                schema_facts(value, descriptions, closed)


def check_anthropic_strict(tool):
    ANTHROPIC_TOOL.validate_python(tool)
    if "strict" not in tool:
        return
    if tool["strict"] is not True:
        raise ValueError(f"strict is {tool['strict']!r}, not true")
    schema = without_type_arrays(tool["input_schema"])
    transformed = transform_schema(copy.deepcopy(schema))
    before, after = (set(), [0]), (set(), [0])
    schema_facts(schema, *before)
    schema_facts(transformed, *after)
    restated = sorted(after[0] - before[0])
    if restated:
        raise ValueError(f"the SDK's transform_schema restates a keyword: {restated[0]!r}")
    if after[1] != before[1]:
        raise ValueError("the SDK's transform_schema closes an object the schema left open")


def gemini_rules(schema, path):
    """The documented Schema rules the pydantic type does not state."""
    if not isinstance(schema, dict):
        return
    if str(schema.get("type", "")).lower() == "object":
        properties = schema.get("properties")
        if not properties:
            raise ValueError(f"{path}: an OBJECT without properties")
        for name, child in properties.items():
            if not GEMINI_PARAMETER_NAME.match(name):
                raise ValueError(f"{path}: parameter name {name!r} is outside Gemini's rule")
            gemini_rules(child, f"{path}.properties.{name}")
    if "items" in schema:
        gemini_rules(schema["items"], f"{path}.items")
    for index, branch in enumerate(schema.get("anyOf") or []):
        gemini_rules(branch, f"{path}.anyOf[{index}]")


def check_gemini(declaration):
    # google-genai only warns about a value outside an enum (`uint8 is not a valid
    # Type`); the API refuses it, so here it is an error.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        genai.FunctionDeclaration.model_validate(declaration)
    if "parameters" in declaration and "parametersJsonSchema" in declaration:
        raise ValueError("both parameters and parametersJsonSchema")
    if "parameters" in declaration:
        gemini_rules(declaration["parameters"], "parameters")
    if "parametersJsonSchema" in declaration:
        schema = declaration["parametersJsonSchema"]
        check_json_schema(schema)
        if schema.get("type") != "object":
            raise ValueError("parametersJsonSchema is not an object schema")


def check_mcp(tool):
    mcp.types.Tool.model_validate(tool)
    # The MCP schema fixes both to `type: "object"`; the pydantic type does not check it.
    for key in ["inputSchema", "outputSchema"]:
        if key in tool and tool[key].get("type") != "object":
            raise ValueError(f"{key} is not `type: \"object\"`")


def json_schemas(format_, tool):
    """Every JSON Schema a tool of `format_` holds."""
    found = {
        "openai_chat": [tool.get("function", {}).get("parameters")],
        "openai_responses": [tool.get("parameters"), tool.get("output_schema")]
        + [
            schema
            for inner in tool.get("tools") or []
            if isinstance(inner, dict)
            for schema in (inner.get("parameters"), inner.get("output_schema"))
        ],
        "anthropic": [tool.get("input_schema")],
        "gemini": [tool.get("parametersJsonSchema")],
        "mcp": [tool.get("inputSchema"), tool.get("outputSchema")],
    }.get(format_, [])
    return [schema for schema in found if schema is not None]


def check_all_json_schemas(format_):
    def check(tool):
        for schema in json_schemas(format_, tool):
            check_json_schema(schema)

    return check


# (validator, formats it reads, its check, a sample it must reject)
OBJECT = {"type": "object", "properties": {"a": {"type": "string"}}}
VALIDATORS = [
    (
        "jsonschema",
        ["openai_chat", "openai_responses", "anthropic", "gemini", "mcp"],
        check_all_json_schemas,
        ("anthropic", {"name": "bad", "input_schema": {"type": "object", "required": "a"}}),
    ),
    (
        "openai",
        ["openai_chat"],
        lambda _: check_openai_chat,
        (
            "openai_chat",
            {
                "type": "function",
                "function": {"name": "bad", "parameters": OBJECT, "strict": True},
            },
        ),
    ),
    (
        "openai",
        ["openai_responses"],
        lambda _: check_openai_responses,
        (
            "openai_responses",
            {"type": "function", "name": "bad", "parameters": OBJECT, "strict": True},
        ),
    ),
    (
        "anthropic",
        ["anthropic"],
        lambda _: check_anthropic,
        ("anthropic", {"name": "bad", "input_schema": OBJECT, "input_example": [{"a": "b"}]}),
    ),
    (
        "anthropic-strict",
        ["anthropic"],
        lambda _: check_anthropic_strict,
        (
            "anthropic",
            {
                "name": "bad",
                "strict": True,
                "input_schema": {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "minimum": 0}},
                    "additionalProperties": False,
                },
            },
        ),
    ),
    (
        "google-genai",
        ["gemini"],
        lambda _: check_gemini,
        (
            "gemini",
            {
                "name": "bad",
                "description": "A map.",
                "parameters": {"type": "object", "properties": {"m": {"type": "object"}}},
            },
        ),
    ),
    (
        "mcp",
        ["mcp"],
        lambda _: check_mcp,
        ("mcp", {"name": "bad", "inputSchema": {"type": "array"}}),
    ),
]


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        rendered = json.load(file)
    # A bad sample each validator must reject.
    for name, _, make_check, (format_, sample) in VALIDATORS:
        if problem_of(make_check(format_), sample) is None:
            print(f"{name} self-check: accepted a bad {format_} tool: {json.dumps(sample)}")
            sys.exit(2)
    # More that must be rejected: an example that is not an object (pydantic reads the
    # SDK's `Iterable` lazily, so only the explicit check sees it), a misspelled key,
    # a Responses `output_schema` that is not a schema object.
    function = {"type": "function", "name": "x", "parameters": OBJECT, "strict": False}
    for check, sample in [
        (check_anthropic, {"name": "x", "input_schema": OBJECT, "input_examples": ["a"]}),
        (check_openai_responses, {**function, "output_schema": "a string"}),
        (check_openai_responses, {**function, "output_schemas": OBJECT}),
        (
            check_openai_chat,
            {"type": "function", "function": {"name": "x", "parameters": OBJECT, "output_schema": OBJECT}},
        ),
    ]:
        if problem_of(check, sample) is None:
            print(f"self-check: {check.__name__} accepted {json.dumps(sample)}")
            sys.exit(2)
    for sample in BAD_NAMESPACES:
        if problem_of(check_openai_responses, sample) is None:
            print(f"openai self-check: accepted a bad namespace: {json.dumps(sample)}")
            sys.exit(2)
    # A Gemini declaration also fails on a non-standard type.
    if problem_of(check_gemini, {"name": "x", "parameters": {"type": "uint8"}}) is None:
        print("google-genai self-check: accepted type uint8")
        sys.exit(2)

    totals = {}
    failed = 0
    for name, formats, make_check, _ in VALIDATORS:
        for format_ in formats:
            check = make_check(format_)
            for tool in rendered.get(format_, []):
                label = tool.get("name") or tool.get("function", {}).get("name")
                totals.setdefault(name, [0, 0])[0] += 1
                why = problem_of(check, tool)
                if why is not None:
                    totals[name][1] += 1
                    failed += 1
                    print(f"{name}: {format_} {label}: {why}")
    for name, (checked, rejected) in totals.items():
        print(f"{name} verdict: {checked} tools, {rejected} rejected")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
