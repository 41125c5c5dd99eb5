//! A toolbox namespace (an MCP server's tools, `McpTools`, feature `mcp-client`) as an
//! OpenAI Responses `namespace` entry, against the fixture server
//! `tests/src/bin/fixture_mcp.rs`: one entry holding the namespace's functions by their
//! names inside it, flat `label_tool` names in every other format, the tool choice naming
//! exactly what the gate permits inside it, a recorded namespaced `function_call` (and its
//! stream) read back as the local name, gated to that runtime tool and run, an unknown
//! namespace refused as unknown, and a fixed list whose bytes stay put while namespaced
//! deferred tools are activated, by the local search or the hosted one.
#![cfg(feature = "mcp-client")]

use serde_json::{Value, json};
use std::path::PathBuf;
use toolset::consumer::{Format, openai_responses};
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::request::{Activations, Request};
use toolset::stream::{CallStream, OpenAiResponses};
use toolset::toolbox::McpTools;
use toolset::{Autonomy, Policy, Tier, ToolCall, ToolContext, Toolbox, tool, toolset};

/// The host's own state.
#[derive(Default)]
pub struct Log {
    lines: Vec<String>,
}

/// Write a line to the host's log.
#[tool(tier = "reversible")]
pub async fn write_line(log: &mut Log, line: String) -> String {
    log.lines.push(line.clone());
    format!("wrote {line}")
}

toolset! { pub Host<Log> = [write_line]; }

/// The fixture server as the namespace `fix`, its read-only hints trusted.
async fn fixture() -> McpTools {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
    McpTools::connect_stdio("fix", command)
        .await
        .expect("the fixture server starts")
        .tier(|tool| {
            if tool.annotations.read_only() {
                Tier::ReadOnly
            } else {
                Tier::Irreversible
            }
        })
}

async fn toolbox() -> Toolbox<Host> {
    Host::toolbox()
        .with_namespace(fixture().await)
        .expect("the fixture's tools register")
}

fn list(request: &Request<'_, Host>) -> Vec<Value> {
    let list: Value = serde_json::from_str(&request.tool_list()).expect("a JSON list");
    list.as_array().expect("an array").clone()
}

fn fixture_json(path: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn names(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|tool| {
            tool["name"]
                .as_str()
                .or_else(|| tool.pointer("/function/name").and_then(Value::as_str))
                .expect("a named tool")
        })
        .collect()
}

#[tokio::test]
async fn responses_lists_a_namespace_as_one_entry_and_every_other_format_flat() {
    let toolbox = toolbox().await;
    let policy = Host::policy(Autonomy::ReadOnly);
    let request = toolbox
        .request(&policy)
        .expect("no runtime names")
        .format(Format::OpenAiResponses);
    let entries = list(&request);
    assert_eq!(
        entries.len(),
        2,
        "the set's tool, then one namespace: {entries:?}"
    );
    let namespace = &entries[1];
    assert_eq!(namespace["type"], "namespace");
    assert_eq!(namespace["name"], "fix");
    // The server says nothing of itself but its name.
    assert_eq!(
        namespace["description"],
        "The tools of the MCP server fixture."
    );
    let runtime: Vec<String> = toolbox
        .runtime_tools()
        .iter()
        .map(|tool| tool.spec().name().to_owned())
        .collect();
    let inner: Vec<String> = namespace["tools"]
        .as_array()
        .expect("its tools")
        .iter()
        .map(|tool| {
            assert_eq!(tool["type"], "function");
            assert!(tool.get("namespace").is_none(), "{tool}");
            format!("fix_{}", tool["name"].as_str().expect("a name"))
        })
        .collect();
    // Inside the namespace each tool is its local name without `fix_`, shortened ones too.
    assert_eq!(inner, runtime);
    assert!(runtime.contains(&"fix_echo".to_owned()));
    assert!(
        toolbox
            .runtime_tools()
            .iter()
            .all(|tool| tool.namespace() == Some("fix")),
        "every proxied tool knows its namespace"
    );
    // The other formats list the same tools flat, by their local names.
    for format in [
        Format::OpenAiChat,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ] {
        let request = toolbox.request(&policy).expect("valid").format(format);
        let entries = list(&request);
        let mut expected = vec!["write_line".to_owned()];
        expected.extend(runtime.iter().cloned());
        assert_eq!(names(&entries), expected, "{format}");
    }
    // The choice names the namespace's permitted tools inside it, by their names there.
    let choice = request.tool_choice().expect("Responses has a choice");
    let mut allowed_inner = vec![];
    for tool in namespace["tools"].as_array().expect("tools") {
        allowed_inner.push(json!({"type": "function", "name": tool["name"]}));
    }
    assert_eq!(
        choice,
        json!({"type": "allowed_tools", "mode": "auto", "tools": [
            {"type": "function", "name": "write_line"},
            {"type": "namespace", "name": "fix", "tools": allowed_inner}]})
    );
    assert_eq!(request.offered(), {
        let mut offered = vec!["write_line"];
        offered.extend(runtime.iter().map(String::as_str));
        offered
    });
}

#[tokio::test]
async fn the_host_describes_a_namespace_and_an_empty_description_is_refused() {
    let described = fixture().await.describe("Echo, fail and friends.");
    assert_eq!(described.description(), "Echo, fail and friends.");
    let toolbox = Host::toolbox()
        .with_namespace(described)
        .expect("registers");
    let policy = Host::policy(Autonomy::ReadOnly);
    let request = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses);
    assert_eq!(list(&request)[1]["description"], "Echo, fail and friends.");

    let error = Host::toolbox()
        .with_namespace(fixture().await.describe("  "))
        .expect_err("an empty description");
    assert!(
        error.to_string().contains("McpTools::describe"),
        "the error says what to do: {error}"
    );
}

#[tokio::test]
async fn a_recorded_namespaced_call_is_read_as_its_local_name_gated_and_run() {
    let toolbox = toolbox().await;
    let policy = Host::policy(Autonomy::Reversible);
    let request = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses);
    let response = fixture_json("providers/openai_responses_namespace.json");
    let calls = ToolCall::from_openai_responses(&response).expect("the response parses");
    assert_eq!(
        calls,
        [
            ToolCall::new(
                "call_Nm4Sp7Ec1Ho2Xy5Zq8Rt3Uv",
                "fix_echo",
                r#"{"text":"hi"}"#
            ),
            ToolCall::new(
                "call_Wr6Li9Ne2Ab5Cd8Ef1Gh4Ij7",
                "write_line",
                r#"{"line":"echoed"}"#
            ),
        ]
    );
    let plan = request.gate(calls).expect("both calls are offered");
    assert_eq!(plan.approved().count(), 2);
    let mut log = Log::default();
    let report = Host::apply(&mut log, &ToolContext::default(), plan).await;
    let outcomes: Vec<&Outcome> = report.outcomes().map(|(_, outcome)| outcome).collect();
    assert!(
        matches!(outcomes[0], Outcome::Done(output) if output.text_content() == "echo: hi"),
        "the namespaced call ran on the server: {outcomes:?}"
    );
    assert_eq!(log.lines, ["echoed"]);
    // The results echo the call ids; a `function_call_output` needs no namespace.
    let results = openai_responses::results(&report.results());
    assert_eq!(results[0]["call_id"], "call_Nm4Sp7Ec1Ho2Xy5Zq8Rt3Uv");
    assert_eq!(results[0]["output"], "echo: hi");
}

#[tokio::test]
async fn a_namespaced_call_to_a_namespace_or_name_not_listed_is_unknown() {
    let toolbox = toolbox().await;
    let policy = Host::policy(Autonomy::Reversible);
    let request = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses);
    let response = fixture_json("providers/openai_responses_namespace.json");
    for (namespace, name, read) in [
        ("nope", "echo", "nope_echo"),
        ("fix", "write_line", "fix_write_line"),
        ("fix", "fix_echo", "fix_fix_echo"),
    ] {
        let mut output = response["output"].clone();
        output[1]["namespace"] = json!(namespace);
        output[1]["name"] = json!(name);
        let calls = ToolCall::from_openai_responses(&output).expect("parses");
        assert_eq!(calls[0].name, read);
        let rejected = request.gate(calls).expect_err("a name no tool has");
        let problem = &rejected.problems()[0];
        assert_eq!(problem.kind, ProblemKind::UnknownTool, "{problem:?}");
        assert_eq!(problem.name, read);
        for offered in ["write_line", "fix_echo"] {
            assert!(
                problem.message.contains(offered),
                "the message lists what is offered: {}",
                problem.message
            );
        }
    }
}

#[tokio::test]
async fn the_streamed_namespaced_call_is_the_recorded_one() {
    let toolbox = toolbox().await;
    let policy = Host::policy(Autonomy::Reversible);
    let request = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/streams/openai_responses/namespace.sse");
    let body = std::fs::read_to_string(&path).expect("the recorded stream");
    let mut stream = CallStream::<OpenAiResponses>::new();
    let handed_out = stream.feed_sse(&body).expect("a valid stream");
    let program = stream.finish().expect("the stream completed");
    let recorded =
        ToolCall::from_openai_responses(&fixture_json("providers/openai_responses_namespace.json"))
            .expect("parses");
    assert_eq!(handed_out, recorded, "each call as soon as it was complete");
    assert_eq!(program, recorded);
    for call in &handed_out {
        assert_eq!(request.check(call), Ok(()), "{call:?}");
    }
    let plan = request.gate(handed_out).expect("offered");
    let report = Host::apply(&mut Log::default(), &ToolContext::default(), plan).await;
    assert!(report.outcomes().all(|(_, outcome)| outcome.is_done()));

    // A `namespace` that is no string is a malformed event.
    let broken = body.replace(r#""namespace":"fix""#, r#""namespace":7"#);
    let mut stream = CallStream::<OpenAiResponses>::new();
    let error = stream.feed_sse(&broken).expect_err("malformed");
    assert!(error.to_string().contains("`namespace`"), "{error}");
}

/// The fixture's `echo` and `fail` deferred.
fn deferring() -> Policy<Host> {
    Host::policy(Autonomy::ReadOnly)
        .defer("fix_echo")
        .defer("fix_fail")
}

#[tokio::test]
async fn the_fixed_list_keeps_its_bytes_while_namespaced_deferred_tools_are_activated() {
    let toolbox = toolbox().await;
    let policy = deferring();
    let mut activations = Activations::new();
    let fixed = |activations: &Activations| {
        toolbox
            .request(&policy)
            .expect("the policy's names are the toolbox's")
            .format(Format::OpenAiResponses)
            .activated(activations)
            .fixed_tools()
            .expect("Responses has a fixed list")
    };
    let first = fixed(&activations);
    let entries: Value = serde_json::from_str(&first.tools).expect("JSON");
    let namespace = &entries[1];
    assert_eq!(namespace["type"], "namespace");
    let inner = namespace["tools"].as_array().expect("tools");
    let echo = inner
        .iter()
        .find(|tool| tool["name"] == "echo")
        .expect("echo in place");
    assert_eq!(echo["defer_loading"], true, "deferred inside its namespace");
    assert!(
        inner
            .iter()
            .filter(|tool| tool["defer_loading"] == true)
            .count()
            == 2,
        "{namespace}"
    );
    assert_eq!(entries[2]["type"], "tool_search");
    let permitted = |choice: &Value| -> Vec<String> {
        let tools = choice["tools"].as_array().expect("allowed tools");
        let namespace = tools
            .iter()
            .find(|tool| tool["type"] == "namespace")
            .expect("the namespace is named");
        namespace["tools"]
            .as_array()
            .expect("its tools")
            .iter()
            .map(|tool| tool["name"].as_str().expect("a name").to_owned())
            .collect()
    };
    assert!(!permitted(&first.tool_choice).contains(&"echo".to_owned()));
    let gate = |activations: &Activations| {
        toolbox
            .request(&policy)
            .expect("valid")
            .format(Format::OpenAiResponses)
            .activated(activations)
            .gate([ToolCall::new("1", "fix_echo", r#"{"text":"hi"}"#)])
            .map(|_| ())
            .map_err(|rejected| rejected.problems()[0].kind)
    };
    assert_eq!(gate(&activations), Err(ProblemKind::UnknownTool));

    // The local search finds `echo`: its answer loads it inside its namespace.
    let search = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses)
        .gate([ToolCall::new("s", "tool_search", r#"{"query":"echo"}"#)])
        .expect("the search is answered");
    let report = Host::apply(&mut Log::default(), &ToolContext::default(), search).await;
    let items = openai_responses::results(&report.results());
    assert_eq!(items[0]["type"], "tool_search_output");
    let loaded = &items[0]["tools"][0];
    assert_eq!(loaded["type"], "namespace", "{items}");
    assert_eq!(loaded["name"], "fix");
    assert_eq!(
        loaded["description"],
        "The tools of the MCP server fixture."
    );
    assert_eq!(loaded["tools"][0]["name"], "echo");
    assert_eq!(activations.record(&report), 1);
    assert_eq!(activations.names(), ["fix_echo"]);

    let next = fixed(&activations);
    assert_eq!(next.tools, first.tools, "the fixed list's bytes stay put");
    assert_ne!(next.tool_choice, first.tool_choice);
    assert!(permitted(&next.tool_choice).contains(&"echo".to_owned()));
    assert!(!permitted(&next.tool_choice).contains(&"fail".to_owned()));
    assert_eq!(gate(&activations), Ok(()));

    // The hosted search loads `fail` inside its namespace: recorded by its local name.
    let hosted = json!({"output": [{"type": "tool_search_output", "id": "tso_1",
        "call_id": null, "execution": "server", "status": "completed", "tools": [
            {"type": "namespace", "name": "fix", "description": "The fixture.", "tools": [
                {"type": "function", "name": "fail", "description": "Always fails.",
                 "parameters": {"type": "object", "properties": {}}}]}]}]});
    assert_eq!(activations.record_hosted(&hosted), ["fix_fail"]);
    let last = fixed(&activations);
    assert_eq!(last.tools, first.tools);
    assert!(permitted(&last.tool_choice).contains(&"fail".to_owned()));
}

#[tokio::test]
async fn activated_at_off_a_namespaced_tool_is_listed_flat_after_its_namespace() {
    // At `Off` no search is listed, so deferred tools stay out of the list and an
    // activated one is appended after it: flat, so the namespace's bytes stay put.
    let toolbox = toolbox().await;
    let policy = Host::policy(Autonomy::Off)
        .defer("fix_echo")
        .defer("fix_fail");
    let mut activations = Activations::new();
    let before = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses)
        .tool_list();
    activations.activate("fix_echo");
    let request = toolbox
        .request(&policy)
        .expect("valid")
        .format(Format::OpenAiResponses)
        .activated(&activations);
    let after = request.tool_list();
    let prefix = before.strip_suffix(']').expect("a list");
    assert!(
        after.starts_with(prefix),
        "only appended:\n{before}\n{after}"
    );
    let entries: Value = serde_json::from_str(&after).expect("JSON");
    let last = entries
        .as_array()
        .and_then(|list| list.last())
        .expect("an entry");
    assert_eq!(last["type"], "function");
    assert_eq!(last["name"], "fix_echo");
    let choice = request.tool_choice().expect("a choice");
    let tools = choice["tools"].as_array().expect("allowed tools");
    assert!(
        tools.contains(&json!({"type": "function", "name": "fix_echo"})),
        "named as the list names it: {choice}"
    );
    assert!(request.offered().contains(&"fix_echo"));
}

/// The local names a Responses list or tool choice names, in order: a function by its
/// name, a namespace's tools as `label_tool`; the search entry left out.
fn flattened(entries: &[Value]) -> Vec<String> {
    let mut names = Vec::new();
    for entry in entries {
        match entry["type"].as_str() {
            Some("namespace") => {
                let label = entry["name"].as_str().expect("a namespace name");
                for tool in entry["tools"].as_array().expect("its tools") {
                    let name = tool["name"].as_str().expect("a name");
                    names.push(format!("{label}_{name}"));
                }
            }
            Some("tool_search") => {}
            _ => names.push(entry["name"].as_str().expect("a name").to_owned()),
        }
    }
    names
}

fn choice_names(choice: &Value) -> Vec<String> {
    match choice {
        Value::String(_) => Vec::new(),
        choice => flattened(choice["tools"].as_array().expect("allowed tools")),
    }
}

/// Over every placement of three of the namespace's tools (offered, deferred, hidden,
/// denied), two autonomies, both searches, activations and history: the Responses list
/// declares what `declared` says, a namespace at most once, and the tool choice (of the
/// composed list and of the fixed one) names exactly what the gate permits.
#[tokio::test]
async fn what_the_responses_list_and_choice_name_inside_a_namespace_is_what_the_gate_permits() {
    use toolset::search::{Ranking, ToolSearch};
    let toolbox = toolbox().await;
    let mut candidates: Vec<String> = toolbox
        .runtime_tools()
        .iter()
        .map(|tool| tool.spec().name().to_owned())
        .collect();
    candidates.push("write_line".to_owned());
    let picked = ["fix_echo", "fix_fail", "fix_hang"];
    let mut checked = 0;
    for placement in 0..4u32.pow(3) {
        let policy_for = |autonomy| {
            let mut policy = Host::policy(autonomy);
            for (at, name) in picked.iter().enumerate() {
                policy = match placement / 4u32.pow(at as u32) % 4 {
                    0 => policy,
                    1 => policy.defer(*name),
                    2 => policy.hide(*name),
                    _ => policy.deny(*name),
                };
            }
            policy
        };
        for autonomy in [Autonomy::Off, Autonomy::ReadOnly] {
            let policy = policy_for(autonomy);
            for search in [
                ToolSearch::Local(Ranking::Bm25),
                ToolSearch::Hosted(Ranking::Bm25),
            ] {
                for activated in [&[][..], &["fix_echo"][..], &["fix_echo", "fix_fail"][..]] {
                    let mut activations = Activations::new();
                    for name in activated {
                        activations.activate(*name);
                    }
                    for history in [&[][..], &["fix_fail", "gone"][..]] {
                        let request = toolbox
                            .request(&policy)
                            .expect("the policy's names are the toolbox's")
                            .format(Format::OpenAiResponses)
                            .search(search)
                            .activated(&activations)
                            .history(history.iter().copied());
                        let context = format!(
                            "placement {placement}, {autonomy:?}, {search:?}, activated {activated:?}, history {history:?}"
                        );
                        let offered: Vec<String> = request
                            .offered()
                            .into_iter()
                            .filter(|name| *name != "tool_search")
                            .map(str::to_owned)
                            .collect();
                        let list = list(&request);
                        let declared: Vec<String> = request
                            .declared()
                            .into_iter()
                            .filter(|name| name != "tool_search")
                            .collect();
                        assert_eq!(flattened(&list), declared, "{context}");
                        let namespaces = list.iter().filter(|entry| entry["type"] == "namespace");
                        assert!(namespaces.count() <= 1, "{context}");
                        let choice = request.tool_choice().expect("a choice");
                        assert_eq!(choice_names(&choice), offered, "{context}: {choice}");
                        let fixed = request.fixed_tools().expect("a fixed list");
                        // The fixed list's choice is in the fixed list's order.
                        let mut fixed_names = choice_names(&fixed.tool_choice);
                        fixed_names.sort();
                        let mut sorted = offered.clone();
                        sorted.sort();
                        assert_eq!(fixed_names, sorted, "{context}");
                        let fixed_list: Vec<Value> =
                            serde_json::from_str(&fixed.tools).expect("a JSON list");
                        let namespaces = fixed_list
                            .iter()
                            .filter(|entry| entry["type"] == "namespace");
                        assert!(namespaces.count() <= 1, "{context}");
                        for name in &candidates {
                            let arguments = if name == "write_line" {
                                r#"{"line":"x"}"#
                            } else {
                                r#"{"text":"x"}"#
                            };
                            let gated = request.gate([ToolCall::new("1", name, arguments)]);
                            assert_eq!(gated.is_ok(), offered.contains(name), "{context}: {name}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 64 * 2 * 2 * 3 * 2);
}
