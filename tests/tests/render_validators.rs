//! Every rendering judged by third-party validators, the consumers' own published code
//! and the standard's implementations, on the awkward-type corpus (`Corpus`, `Awkward`
//! and the example's tools):
//! - Ajv 2020-12 in strict mode (`tests/validators/ajv.mjs`, npm `ajv` + `ajv-formats`);
//! - jsonschema's 2020-12 meta-schema check, the openai SDK's tool types and its
//!   strict-schema helper, the anthropic SDK's `ToolParam` and strict transform (a strict
//!   tool's schema is one it keeps as it is), google-genai's `FunctionDeclaration`, and `mcp.types.Tool`
//!   (`tests/validators/validate.py`).
//!
//! The rendered lists go to a JSON file the scripts read; each script exits 0 only when
//! every tool passes. A deliberately broken rendering must make every validator fail, so
//! no verdict here can pass by accepting everything. `./scripts/test` installs what the
//! scripts need (`tests/validators/requirements.txt`, `tests/validators/package.json`).

mod render_corpus;

use render_corpus::{Awkward, Corpus};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use toolset::ToolSpec;
use toolset::consumer::{Format, tool_value};
use toolset::prelude::*;
use toolset_tests::InboxTools;

const INSTALL: &str = "install them with `python3 -m pip install -r tests/validators/requirements.txt` \
     and `npm ci --prefix tests/validators` (./scripts/test does both)";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

fn all_specs() -> Vec<&'static ToolSpec> {
    Corpus::specs()
        .iter()
        .chain(Awkward::specs())
        .chain(InboxTools::specs())
        .collect()
}

/// `{"<format>": [tool, ...]}` for every JSON format.
fn rendered() -> Map<String, Value> {
    let specs = all_specs();
    Format::ALL
        .into_iter()
        .filter(|format| format.is_json())
        .map(|format| {
            let tools = specs.iter().map(|spec| tool_value(spec, format)).collect();
            (format.as_str().to_owned(), Value::Array(tools))
        })
        .collect()
}

/// What one validator script said: its exit code and its output.
struct Verdict {
    code: Option<i32>,
    output: String,
}

fn run(program: &str, script: &str, rendered: &Map<String, Value>, file: &str) -> Verdict {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(file);
    let text = serde_json::to_string_pretty(rendered).expect("JSON serializes");
    std::fs::write(&path, text).expect("the target's tmp dir is writable");
    let output = Command::new(program)
        .arg(workspace_root().join(script))
        .arg(&path)
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|error| panic!("cannot run {program}: {error}; {INSTALL}"));
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    assert!(
        !text.contains("ModuleNotFoundError") && !text.contains("ERR_MODULE_NOT_FOUND"),
        "{script}: a validator is not installed; {INSTALL}\n{text}"
    );
    Verdict {
        code: output.status.code(),
        output: text,
    }
}

fn python(rendered: &Map<String, Value>, file: &str) -> Verdict {
    run("python3", "tests/validators/validate.py", rendered, file)
}

fn ajv(rendered: &Map<String, Value>, file: &str) -> Verdict {
    run("node", "tests/validators/ajv.mjs", rendered, file)
}

#[test]
fn ajv_in_strict_mode_compiles_every_json_schema_rendered() {
    let verdict = ajv(&rendered(), "rendered-ajv.json");
    assert_eq!(verdict.code, Some(0), "{}", verdict.output);
    assert!(
        verdict.output.contains(", 0 rejected"),
        "{}",
        verdict.output
    );
}

#[test]
fn the_python_validators_accept_every_tool_rendered() {
    let verdict = python(&rendered(), "rendered-python.json");
    assert_eq!(verdict.code, Some(0), "{}", verdict.output);
    for validator in [
        "jsonschema",
        "openai",
        "anthropic-strict",
        "google-genai",
        "mcp",
    ] {
        assert!(
            verdict.output.contains(&format!("{validator} verdict: ")),
            "{validator} judged nothing\n{}",
            verdict.output
        );
    }
}

/// A rendering broken the ways the renderers must never break it, one way per consumer.
fn broken() -> Map<String, Value> {
    let mut rendered = Map::new();
    let uint =
        json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint32"}}});
    rendered.insert(
        "anthropic".into(),
        json!([
            {"name": "bad", "description": "A non-standard format.", "input_schema": uint},
            {"name": "bad_strict", "description": "A bound strict tool use cannot express.",
             "strict": true, "input_schema": {"type": "object", "additionalProperties": false,
             "properties": {"n": {"type": "integer", "minimum": 0}}}},
        ]),
    );
    rendered.insert(
        "openai_responses".into(),
        json!([{"type": "function", "name": "bad", "description": "Not closed.", "strict": true,
                "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]),
    );
    rendered.insert(
        "openai_chat".into(),
        json!([{"type": "function", "function": {"name": "bad", "description": "Not all required.",
                "strict": true, "parameters": {"type": "object", "additionalProperties": false,
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]}}}]),
    );
    rendered.insert(
        "gemini".into(),
        json!([{"name": "bad", "description": "A map as an OBJECT without properties.",
                "parameters": {"type": "object", "properties": {"m": {"type": "object"}}}}]),
    );
    rendered.insert(
        "mcp".into(),
        json!([{"name": "bad", "description": "An array input.", "inputSchema": {"type": "array", "items": {"type": "number", "format": "double"}}}]),
    );
    rendered
}

#[test]
fn every_validator_rejects_a_broken_rendering() {
    let verdict = ajv(&broken(), "broken-ajv.json");
    assert_eq!(verdict.code, Some(1), "{}", verdict.output);
    assert!(
        verdict.output.contains("unknown format \"uint32\""),
        "{}",
        verdict.output
    );
    assert!(
        verdict.output.contains("unknown format \"double\""),
        "{}",
        verdict.output
    );

    let verdict = python(&broken(), "broken-python.json");
    assert_eq!(verdict.code, Some(1), "{}", verdict.output);
    for line in [
        "openai: openai_responses bad: the SDK's strict helper changes the schema",
        "openai: openai_chat bad: the SDK's strict helper changes the schema",
        "anthropic-strict: anthropic bad_strict: the SDK's transform_schema restates a keyword",
        "google-genai: gemini bad: parameters.properties.m: an OBJECT without properties",
        "mcp: mcp bad: inputSchema is not `type: \"object\"`",
    ] {
        assert!(verdict.output.contains(line), "{line}\n{}", verdict.output);
    }
}

#[test]
fn a_meta_schema_violation_fails_jsonschema() {
    let mut rendered = Map::new();
    rendered.insert(
        "anthropic".into(),
        json!([{"name": "bad", "description": "d", "input_schema": {"type": "object", "required": "a"}}]),
    );
    let verdict = python(&rendered, "broken-meta.json");
    assert_eq!(verdict.code, Some(1), "{}", verdict.output);
    assert!(
        verdict.output.contains("jsonschema: anthropic bad:"),
        "{}",
        verdict.output
    );
}

// Tool choices (`Request::tool_choice`, `Request::fixed_tools`), judged by the SDKs' own
// tool-choice types (`tests/validators/validate_choice.py`), in a file of their own.

fn choice_python(choices: &Map<String, Value>, file: &str) -> Verdict {
    run(
        "python3",
        "tests/validators/validate_choice.py",
        choices,
        file,
    )
}

/// `{"<format>": [choice, ...]}` for the formats with a tool choice: every mode, for the
/// composed and the fixed list, under requests that permit everything, defer tools to
/// the local or the hosted search (activated or not), declare history, and permit
/// nothing.
fn choices() -> Map<String, Value> {
    use toolset::consumer::ChoiceMode;
    use toolset::search::Ranking;
    use toolset::{Activations, Autonomy, Policy, Request, ToolSearch};
    let names = <InboxTools as ToolSet>::Name::ALL;
    let named = |name: &str| {
        names
            .iter()
            .copied()
            .find(|tool| tool.as_str() == name)
            .expect("a tool of InboxTools")
    };
    let plain = Policy::<InboxTools>::new(Autonomy::Reversible);
    let deferred = plain.clone().defer(named("search")).defer(named("now"));
    let denied = names
        .iter()
        .fold(plain.clone(), |policy, &tool| policy.deny(tool));
    let mut activations = Activations::new();
    activations.activate("search");
    let mut by_format = Map::new();
    for format in [Format::OpenAiChat, Format::OpenAiResponses, Format::Gemini] {
        let mut rendered = Vec::new();
        for mode in [
            ChoiceMode::Auto,
            ChoiceMode::Required,
            ChoiceMode::Unrestricted,
        ] {
            for policy in [&plain, &deferred, &denied] {
                for search in [
                    ToolSearch::Local(Ranking::Bm25),
                    ToolSearch::Hosted(Ranking::Bm25),
                ] {
                    for activated in [&Activations::new(), &activations] {
                        let request = Request::new(policy)
                            .format(format)
                            .choice_mode(mode)
                            .search(search)
                            .activated(activated)
                            .history(["gone_tool", "now"]);
                        rendered.push(request.tool_choice().expect("the format has a choice"));
                        if let Ok(fixed) = request.fixed_tools() {
                            rendered.push(fixed.tool_choice);
                        }
                    }
                }
            }
        }
        rendered.dedup();
        by_format.insert(format.as_str().to_owned(), Value::Array(rendered));
    }
    by_format
}

#[test]
fn the_sdk_types_accept_every_tool_choice_rendered() {
    let choices = choices();
    // Every shape is there: allowed tools, the Responses search, "none" and "auto".
    let text = Value::Object(choices.clone()).to_string();
    for shape in [
        r#"{"type":"tool_search"}"#,
        r#""mode":"required""#,
        r#""mode":"ANY""#,
        r#""mode":"VALIDATED""#,
        r#""mode":"NONE""#,
        r#""mode":"AUTO""#,
        r#""none""#,
        r#""auto""#,
    ] {
        assert!(text.contains(shape), "no {shape} in {text}");
    }
    let verdict = choice_python(&choices, "choices-python.json");
    assert_eq!(verdict.code, Some(0), "{}", verdict.output);
    for validator in ["openai", "google-genai"] {
        assert!(
            verdict
                .output
                .contains(&format!("{validator} choice verdict: ")),
            "{validator} judged nothing\n{}",
            verdict.output
        );
    }
}

#[test]
fn every_choice_validator_rejects_a_broken_choice() {
    let mut broken = Map::new();
    broken.insert(
        "openai_chat".into(),
        json!([{"type": "allowed_tools", "allowed_tools": {"mode": "auto",
                "tools": [{"type": "function", "name": "now"}]}}]),
    );
    broken.insert(
        "openai_responses".into(),
        json!([{"type": "allowed_tools", "mode": "auto", "allowed_tools": {},
                "tools": [{"type": "function", "name": "now"}]}]),
    );
    broken.insert(
        "gemini".into(),
        json!([{"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["now"]}}]),
    );
    let verdict = choice_python(&broken, "broken-choices-python.json");
    assert_eq!(verdict.code, Some(1), "{}", verdict.output);
    for line in [
        "openai: openai_chat ",
        "openai: openai_responses ",
        "google-genai: gemini ",
        "allowedFunctionNames with mode AUTO: only ANY or VALIDATED",
        "openai choice verdict: 2 choices, 2 rejected",
    ] {
        assert!(verdict.output.contains(line), "{line}\n{}", verdict.output);
    }
}
