//! Every rendering judged by third-party validators, the consumers' own published code
//! and the standard's implementations, on the awkward-type corpus (`Corpus`, `Awkward`
//! and the example's tools):
//! - Ajv 2020-12 in strict mode (`tests/validators/ajv.mjs`, npm `ajv` + `ajv-formats`);
//! - jsonschema's 2020-12 meta-schema check, the openai SDK's tool types and its
//!   strict-schema helper, the anthropic SDK's `ToolParam` and strict transform (a strict
//!   tool's schema is one it keeps as it is), google-genai's `FunctionDeclaration`, and
//!   `mcp.types.Tool` (`tests/validators/validate.py`).
//!
//! The corpus holds a tool with a late result (`wire_funds`, OpenAI Responses' `async`),
//! tools with examples (Anthropic's `input_examples`) and with `Json<T>`
//! results of an object and of an array (MCP's `outputSchema`, OpenAI Responses'
//! `output_schema`), so those fields are judged too (`the_corpus_renders_every_optional_field`).
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
        "anthropic",
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

#[test]
fn the_corpus_renders_every_optional_field() {
    assert_eq!(
        Corpus::check_declarations(),
        Ok(()),
        "the examples pass the gate"
    );
    let rendered = rendered();
    let count = |format: &str, key: &str| {
        rendered[format]
            .as_array()
            .expect("a list")
            .iter()
            .filter(|tool| tool.get(key).is_some())
            .count()
    };
    assert!(count("anthropic", "input_examples") >= 2);
    assert!(count("mcp", "outputSchema") >= 1);
    // `outline` (an object) and `lookup` (an array), at least.
    assert!(count("openai_responses", "output_schema") > count("mcp", "outputSchema"));
    // `wire_funds` (`late_result`): the SDK's `FunctionToolParam` judges its `async`.
    assert_eq!(count("openai_responses", "async"), 1);
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
            {"name": "misspelled", "description": "A key the SDK lacks.",
             "input_schema": {"type": "object", "properties": {}}, "input_example": [{}]},
            {"name": "bad_strict", "description": "A bound strict tool use cannot express.",
             "strict": true, "input_schema": {"type": "object", "additionalProperties": false,
             "properties": {"n": {"type": "integer", "minimum": 0}}}},
        ]),
    );
    rendered.insert(
        "openai_responses".into(),
        json!([{"type": "function", "name": "bad", "description": "Not closed.", "strict": true,
                "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}},
               {"type": "function", "name": "bad_async", "description": "`async` not a boolean.",
                "strict": false, "async": "yes",
                "parameters": {"type": "object", "properties": {}}}]),
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
        "openai: openai_responses bad_async: ",
        "openai: openai_chat bad: the SDK's strict helper changes the schema",
        "anthropic-strict: anthropic bad_strict: the SDK's transform_schema restates a keyword",
        "google-genai: gemini bad: parameters.properties.m: an OBJECT without properties",
        "anthropic: anthropic misspelled: ",
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
    use toolset::request::{Activations, Request};
    use toolset::search::{Ranking, ToolSearch};
    use toolset::{Autonomy, Policy};
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
    // Anthropic's tool changes: the blocks of a conversation that activates a deferred
    // tool, loses one to a tightened policy and declares a history name, and the fixed
    // list's tools (deferred ones marked `defer_loading`).
    let mut announced = toolset::consumer::Announced::default();
    let mut changes = Vec::new();
    let mut fixed_tools = Vec::new();
    let tightened = deferred.clone().deny(named("now"));
    for (policy, activated) in [
        (&deferred, &Activations::new()),
        (&deferred, &activations),
        (&tightened, &activations),
    ] {
        let request = Request::new(policy)
            .format(Format::Anthropic)
            .activated(activated)
            .history(["gone_tool"]);
        let rendered = request
            .tool_changes(&mut announced)
            .expect("Anthropic has tool changes");
        changes.extend(rendered.blocks);
        let tools: Vec<Value> = serde_json::from_str(&rendered.tools).expect("a JSON array");
        fixed_tools.extend(tools);
    }
    fixed_tools.dedup();
    by_format.insert("anthropic_changes".into(), Value::Array(changes));
    by_format.insert("anthropic_fixed_tools".into(), Value::Array(fixed_tools));
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
        r#""type":"tool_addition""#,
        r#""type":"tool_removal""#,
        r#""defer_loading":true"#,
    ] {
        assert!(text.contains(shape), "no {shape} in {text}");
    }
    let verdict = choice_python(&choices, "choices-python.json");
    assert_eq!(verdict.code, Some(0), "{}", verdict.output);
    for validator in ["openai", "google-genai", "anthropic"] {
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
    broken.insert(
        "anthropic_changes".into(),
        json!([{"type": "tool_addition", "tool": {"type": "tool_reference", "id": "now"}}]),
    );
    let verdict = choice_python(&broken, "broken-choices-python.json");
    assert_eq!(verdict.code, Some(1), "{}", verdict.output);
    for line in [
        "openai: openai_chat ",
        "openai: openai_responses ",
        "google-genai: gemini ",
        "anthropic: anthropic_changes ",
        "allowedFunctionNames with mode AUTO: only ANY or VALIDATED",
        "openai choice verdict: 2 choices, 2 rejected",
    ] {
        assert!(verdict.output.contains(line), "{line}\n{}", verdict.output);
    }
}

// A toolbox namespace (an MCP server's tools, feature `mcp-client`) as OpenAI Responses
// lists it: one `namespace` entry, judged as the SDK's NamespaceToolParam, in the
// composed list, the fixed list (its deferred tools marked inside it) and the local
// search's `tool_search_output`; and the tool choices naming its permitted tools.

#[cfg(feature = "mcp-client")]
mod namespaces {
    use super::{Verdict, choice_python, python};
    use serde_json::{Map, Value, json};
    use toolset::consumer::{Format, openai_responses};
    use toolset::prelude::*;
    use toolset::request::Activations;
    use toolset::toolbox::McpTools;
    use toolset::{Autonomy, Policy, Tier, ToolCall, ToolContext, Toolbox};
    use toolset_tests::InboxTools;

    async fn toolbox() -> Toolbox<InboxTools> {
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
        let tools = McpTools::connect_stdio("fix", command)
            .await
            .expect("the fixture server starts")
            .tier(|_| Tier::ReadOnly);
        InboxTools::toolbox()
            .with_namespace(tools)
            .expect("the fixture's tools register")
    }

    fn entries(list: &str) -> Vec<Value> {
        match serde_json::from_str(list) {
            Ok(Value::Array(entries)) => entries,
            other => panic!("not a JSON list: {other:?}"),
        }
    }

    /// Every Responses list entry and tool choice the namespace gives, under a plain
    /// policy and one deferring two of its tools, before and after an activation.
    async fn rendered() -> (Map<String, Value>, Map<String, Value>) {
        let toolbox = toolbox().await;
        let plain = Policy::<InboxTools>::new(Autonomy::Reversible);
        let deferring = plain.clone().defer("fix_echo").defer("fix_fail");
        let mut activated = Activations::new();
        activated.activate("fix_echo");
        let mut tools = Vec::new();
        let mut choices = Vec::new();
        for policy in [&plain, &deferring] {
            for activations in [&Activations::new(), &activated] {
                let request = toolbox
                    .request(policy)
                    .expect("the policy's names are the toolbox's")
                    .format(Format::OpenAiResponses)
                    .activated(activations);
                tools.extend(entries(&request.tool_list()));
                choices.push(request.tool_choice().expect("Responses has a choice"));
                let fixed = request.fixed_tools().expect("Responses has a fixed list");
                tools.extend(entries(&fixed.tools));
                choices.push(fixed.tool_choice);
            }
        }
        let search = toolbox
            .request(&deferring)
            .expect("valid")
            .format(Format::OpenAiResponses)
            .gate([ToolCall::new("s", "tool_search", r#"{"query":"echo"}"#)])
            .expect("the search is answered");
        let report = InboxTools::apply(
            &mut toolset_tests::Inbox::default(),
            &ToolContext::default(),
            search,
        )
        .await;
        let output = openai_responses::results(&report.results());
        tools.extend(output[0]["tools"].as_array().cloned().unwrap_or_default());
        // The search entry is not a function; validate.py judges functions and namespaces.
        tools.retain(|tool| tool["type"] != "tool_search");
        tools.dedup();
        choices.dedup();
        let text = Value::Array(tools.clone()).to_string();
        assert!(text.contains(r#""type":"namespace""#), "{text}");
        assert!(text.contains(r#""defer_loading":true"#), "{text}");
        let choice_text = Value::Array(choices.clone()).to_string();
        assert!(
            choice_text.contains(r#""type":"namespace""#),
            "{choice_text}"
        );
        let mut by_format = Map::new();
        by_format.insert("openai_responses".into(), Value::Array(tools));
        let mut choice_by_format = Map::new();
        choice_by_format.insert("openai_responses".into(), Value::Array(choices));
        (by_format, choice_by_format)
    }

    fn passed(verdict: &Verdict, validator: &str) {
        assert_eq!(verdict.code, Some(0), "{}", verdict.output);
        assert!(
            verdict.output.contains(validator),
            "{validator} judged nothing\n{}",
            verdict.output
        );
    }

    #[tokio::test]
    async fn the_sdk_types_accept_every_namespace_entry_and_choice_rendered() {
        let (tools, choices) = rendered().await;
        passed(
            &python(&tools, "namespaces-python.json"),
            "openai verdict: ",
        );
        passed(
            &choice_python(&choices, "namespace-choices-python.json"),
            "openai choice verdict: ",
        );
    }

    #[tokio::test]
    async fn a_namespace_entry_without_its_description_is_rejected() {
        let (tools, _) = rendered().await;
        let mut broken = tools["openai_responses"]
            .as_array()
            .and_then(|tools| tools.iter().find(|tool| tool["type"] == "namespace"))
            .cloned()
            .expect("a namespace entry");
        broken
            .as_object_mut()
            .expect("an object")
            .remove("description");
        let mut rendered = Map::new();
        rendered.insert("openai_responses".into(), json!([broken]));
        let verdict = python(&rendered, "broken-namespace-python.json");
        assert_eq!(verdict.code, Some(1), "{}", verdict.output);
        assert!(
            verdict.output.contains("openai: openai_responses fix: "),
            "{}",
            verdict.output
        );
    }
}

// Who may call each tool (`allowed_callers`, a request with code execution), judged by the
// SDKs' own tool types (`tests/validators/validate_callers.py`), in a file of their own.

/// `{"anthropic_tools": […], "openai_responses_tools": […]}`: every tool of the corpus,
/// the awkward types and the inbox, listed by a request with code execution under
/// policies letting code call read-only tools (the default) or all it may, offered or
/// deferred to the hosted search (`defer_loading` and `allowed_callers` together).
fn callers() -> Map<String, Value> {
    fn lists<T: ToolSet>(format: Format, into: &mut Vec<Value>) {
        use toolset::policy::FromCode;
        use toolset::request::Request;
        use toolset::search::{Ranking, ToolSearch};
        use toolset::{Autonomy, Policy};
        let plain = Policy::<T>::new(Autonomy::Reversible);
        let wide = plain.clone().from_code(FromCode::ExternalReversible);
        let deferred = <T as ToolSet>::Name::ALL
            .iter()
            .fold(wide.clone(), |policy, &tool| policy.defer(tool));
        for policy in [&plain, &wide, &deferred] {
            let list = Request::new(policy)
                .format(format)
                .search(ToolSearch::Hosted(Ranking::Bm25))
                .code_execution(true)
                .tool_list();
            let tools: Vec<Value> = serde_json::from_str(&list).expect("a JSON list");
            // The hosted search's own entry is no function tool.
            into.extend(
                tools.into_iter().filter(|tool| {
                    tool.get("input_schema").is_some() || tool["type"] == "function"
                }),
            );
        }
    }
    let mut by_kind = Map::new();
    for (format, kind) in [
        (Format::Anthropic, "anthropic_tools"),
        (Format::OpenAiResponses, "openai_responses_tools"),
    ] {
        let mut tools = Vec::new();
        lists::<Corpus>(format, &mut tools);
        lists::<Awkward>(format, &mut tools);
        lists::<InboxTools>(format, &mut tools);
        by_kind.insert(kind.to_owned(), Value::Array(tools));
    }
    by_kind
}

#[test]
fn the_sdk_types_accept_every_allowed_callers_rendered() {
    let callers = callers();
    let text = Value::Object(callers.clone()).to_string();
    for shape in [
        r#""allowed_callers":["direct"]"#,
        r#""allowed_callers":["direct","programmatic"]"#,
        r#""allowed_callers":["direct","code_execution_20250825","code_execution_20260120","code_execution_20260521"]"#,
        r#""defer_loading":true,"allowed_callers""#,
    ] {
        assert!(text.contains(shape), "no {shape}");
    }
    let verdict = run(
        "python3",
        "tests/validators/validate_callers.py",
        &callers,
        "callers-python.json",
    );
    assert_eq!(verdict.code, Some(0), "{}", verdict.output);
    for kind in ["anthropic_tools", "openai_responses_tools"] {
        assert!(
            verdict.output.contains(&format!("({kind}): ")),
            "{kind} judged by none\n{}",
            verdict.output
        );
    }
}
