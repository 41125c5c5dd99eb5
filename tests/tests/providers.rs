//! Provider wire formats against realistic payloads checked in under
//! `fixtures/providers/`: calls parse with their ids, names and arguments; broken payloads
//! fail with a message naming the JSON path; results render in each provider's shape; and
//! the action key ignores spelling but not meaning.

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;
use toolset::consumer::ProviderError;
use toolset::consumer::{Format, anthropic, gemini, mcp, openai_chat, openai_responses};
use toolset::output::ToolReply;
use toolset::{ToolCall, ToolOutput};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/providers")
}

fn fixture(name: &str) -> Value {
    let path = fixtures_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// The fixtures of well-formed payloads, with the parser each one is for.
const VALID: &[&str] = &[
    "openai_chat.json",
    "openai_chat_response.json",
    "openai_chat_text_only.json",
    "openai_chat_malformed_arguments.json",
    "openai_responses.json",
    "openai_responses_namespace.json",
    "openai_responses_program_read.json",
    "openai_responses_program_write.json",
    "anthropic.json",
    "anthropic_code_read.json",
    "anthropic_code_write.json",
    "gemini.json",
    "gemini_content.json",
    "mcp_tools_call.json",
    "mcp_tools_call_no_arguments.json",
];

/// The fixtures of broken payloads, with the path their error must name.
const BROKEN: &[(&str, &str)] = &[
    (
        "openai_chat_broken_name.json",
        "tool_calls[1].function.name",
    ),
    (
        "openai_chat_arguments_object.json",
        "tool_calls[0].function.arguments",
    ),
    ("openai_responses_broken_call_id.json", "output[1].call_id"),
    ("anthropic_input_not_object.json", "content[1].input"),
    (
        "gemini_args_not_object.json",
        "candidates[0].content.parts[0].functionCall.args",
    ),
    ("mcp_tools_call_broken_name.json", "name"),
];

/// Parses a fixture with the parser its file name selects.
fn parse(name: &str) -> Result<Vec<ToolCall>, ProviderError> {
    let value = fixture(name);
    if name.starts_with("openai_chat") {
        ToolCall::from_openai_chat(&value)
    } else if name.starts_with("openai_responses") {
        ToolCall::from_openai_responses(&value)
    } else if name.starts_with("anthropic") {
        ToolCall::from_anthropic(&value)
    } else if name.starts_with("gemini") {
        ToolCall::from_gemini(&value)
    } else if name.starts_with("mcp") {
        let id = match &value["id"] {
            Value::String(id) => id.clone(),
            id => id.to_string(),
        };
        ToolCall::from_mcp(id, &value["params"]).map(|call| vec![call])
    } else {
        panic!("no parser for fixture {name}")
    }
}

fn calls(name: &str) -> Vec<ToolCall> {
    parse(name).unwrap_or_else(|error| panic!("{name} should parse: {error}"))
}

#[test]
fn every_fixture_is_exercised_by_these_tests() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(fixtures_dir())
        .expect("the fixtures directory exists")
        .map(|entry| {
            entry
                .expect("a readable directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let listed: BTreeSet<String> = VALID
        .iter()
        .copied()
        .chain(BROKEN.iter().map(|(name, _)| *name))
        .map(str::to_owned)
        .collect();
    assert_eq!(on_disk, listed);
}

#[test]
fn every_valid_fixture_parses() {
    for name in VALID {
        calls(name);
    }
}

#[test]
fn openai_chat_message_yields_each_tool_call() {
    assert_eq!(
        calls("openai_chat.json"),
        vec![
            ToolCall::new(
                "call_Vbq3nKp8XzT1fN0aYc2mL4dE",
                "search",
                r#"{"query":"invoice","limit":5}"#
            ),
            ToolCall::new(
                "call_R7uWk2sJ9eHq5gB1tZ8oP3xA",
                "set_due_date",
                r#"{"id":42,"due":"2026-12-01"}"#
            ),
        ]
    );
}

#[test]
fn openai_chat_completion_is_read_through_its_first_choice() {
    assert_eq!(
        calls("openai_chat_response.json"),
        vec![ToolCall::new("call_Ak9sL2mQ7wE4rT6yU1iO3pZx", "now", "{}")]
    );
}

#[test]
fn openai_chat_text_reply_has_no_calls() {
    assert!(calls("openai_chat_text_only.json").is_empty());
}

#[test]
fn malformed_arguments_json_still_parses_and_is_kept_verbatim() {
    let calls = calls("openai_chat_malformed_arguments.json");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, "call_trunc01");
    assert_eq!(calls[0].arguments, r#"{"query": "invoice", "limit": 5"#);
    assert!(serde_json::from_str::<Value>(&calls[0].arguments.text()).is_err());
    assert_eq!(calls[1], ToolCall::new("call_ok02", "now", "{}"));
}

#[test]
fn openai_responses_takes_function_calls_by_call_id() {
    let expected = vec![
        ToolCall::new(
            "call_Xk2Lm9Pq4Rs7Tu1Vw3Yz6Ab8",
            "search",
            r#"{"query":"invoice","limit":5}"#,
        ),
        ToolCall::new(
            "call_Cd5Ef8Gh1Ij4Kl7Mn0Op3Qr6",
            "set_due_date",
            r#"{"id":42,"due":"2026-12-01"}"#,
        ),
    ];
    assert_eq!(calls("openai_responses.json"), expected);
    let bare_output = fixture("openai_responses.json")["output"].clone();
    assert_eq!(
        ToolCall::from_openai_responses(&bare_output).expect("the bare output array parses"),
        expected
    );
}

#[test]
fn anthropic_tool_use_input_becomes_compact_json_arguments() {
    let calls = calls("anthropic.json");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(calls[0].name, "search");
    assert_eq!(
        serde_json::from_str::<Value>(&calls[0].arguments.text()).expect("arguments are JSON"),
        json!({"query": "invoice", "limit": 5})
    );
    assert!(
        !calls[0].arguments.text().contains(' '),
        "{}",
        calls[0].arguments
    );
    assert_eq!(calls[1].id, "toolu_01B18r01rx01mr028946mr0");
    assert_eq!(calls[1].name, "set_due_date");
    assert_eq!(
        serde_json::from_str::<Value>(&calls[1].arguments.text()).expect("arguments are JSON"),
        json!({"id": 42, "due": "2026-12-01"})
    );
}

#[test]
fn gemini_calls_without_ids_get_stable_synthesized_ones() {
    let first = calls("gemini.json");
    assert_eq!(
        first
            .iter()
            .map(|call| call.name.as_str())
            .collect::<Vec<_>>(),
        ["search", "set_due_date"]
    );
    assert!(first[0].id.starts_with("call_") && first[0].id.ends_with("_0"));
    assert!(first[1].id.starts_with("call_") && first[1].id.ends_with("_1"));
    assert_eq!(
        serde_json::from_str::<Value>(&first[0].arguments.text()).expect("arguments are JSON"),
        json!({"query": "invoice", "limit": 5})
    );
    assert_eq!(
        calls("gemini.json"),
        first,
        "parsing twice gives the same ids"
    );
}

#[test]
fn gemini_bare_content_keeps_given_ids_and_defaults_to_empty_args() {
    let read = calls("gemini_content.json");
    assert_eq!(read[0], ToolCall::new("fc-7a1b2c3d", "now", "{}"));
    assert_eq!(
        (read[1].name.as_str(), &*read[1].arguments.text()),
        ("search", r#"{"query":"overdue"}"#)
    );
    assert!(
        read[1].id.starts_with("call_") && read[1].id.ends_with("_1"),
        "{read:?}"
    );
}

#[test]
fn mcp_tools_call_uses_the_request_id() {
    let call = &calls("mcp_tools_call.json")[0];
    assert_eq!(call.id, "7");
    assert_eq!(call.name, "set_due_date");
    assert_eq!(
        serde_json::from_str::<Value>(&call.arguments.text()).expect("arguments are JSON"),
        json!({"id": 42, "due": "2026-12-01"})
    );
    assert_eq!(
        calls("mcp_tools_call_no_arguments.json"),
        vec![ToolCall::new("req-8", "now", "{}")]
    );
}

#[test]
fn a_whole_mcp_request_reads_as_its_params_under_the_request_id() {
    for name in ["mcp_tools_call.json", "mcp_tools_call_no_arguments.json"] {
        assert_eq!(mcp::calls(&fixture(name)).expect(name), calls(name));
    }
}

#[test]
fn every_broken_fixture_fails_naming_the_provider_and_path() {
    for (name, path) in BROKEN {
        let error = parse(name).expect_err(name);
        let message = error.to_string();
        assert_eq!(error.path(), *path, "{name}: {message}");
        assert!(
            name.starts_with(error.format().as_str()),
            "{name}: read as {}",
            error.format()
        );
        assert!(message.contains(&format!(": {path} ")), "{name}: {message}");
    }
}

#[test]
fn broken_fixture_messages_say_what_was_expected() {
    let message = |name: &str| parse(name).expect_err(name).to_string();
    assert_eq!(
        message("openai_chat_broken_name.json"),
        "OpenAI chat message: tool_calls[1].function.name is missing (expected a string)"
    );
    assert_eq!(
        message("anthropic_input_not_object.json"),
        "Anthropic message: content[1].input has the wrong type: expected an object holding the tool's arguments, found a string"
    );
    assert_eq!(
        message("gemini_args_not_object.json"),
        "Gemini response: candidates[0].content.parts[0].functionCall.args has the wrong type: expected an object holding the function's arguments, found an array"
    );
    assert_eq!(
        parse("mcp_tools_call_broken_name.json")
            .expect_err("broken")
            .format(),
        Format::Mcp
    );
}

#[test]
fn wrong_types_anywhere_are_errors_not_panics() {
    let odd = [
        json!(null),
        json!(true),
        json!(1.5),
        json!("text"),
        json!([1, "x", null]),
        json!({"tool_calls": "x", "content": 3, "output": {}, "candidates": 1, "parts": 2}),
        json!({"choices": [null]}),
        json!({"candidates": [{"content": {"parts": [null]}}]}),
        json!({"content": [{"type": 3}]}),
    ];
    for value in &odd {
        // Each call must return (Ok or Err), never panic.
        let _ = ToolCall::from_openai_chat(value);
        let _ = ToolCall::from_openai_responses(value);
        let _ = ToolCall::from_anthropic(value);
        let _ = ToolCall::from_gemini(value);
        let _ = ToolCall::from_mcp(1, value);
    }
    assert!(ToolCall::from_openai_chat(&json!(null)).is_err());
    assert!(ToolCall::from_openai_responses(&json!("x")).is_err());
    assert!(ToolCall::from_anthropic(&json!([])).is_err());
    assert!(ToolCall::from_gemini(&json!(1)).is_err());
    assert!(ToolCall::from_mcp(1, &json!([])).is_err());
}

#[test]
fn provider_error_is_a_std_error() {
    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
    assert_error::<ProviderError>();
    let boxed: Box<dyn std::error::Error> =
        Box::new(parse("openai_chat_broken_name.json").expect_err("broken"));
    assert!(boxed.to_string().contains("tool_calls[1].function.name"));
}

// ---- rendering results back --------------------------------------------------------

fn results_for(calls: &[ToolCall]) -> Vec<ToolReply> {
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| ToolReply {
            caller: toolset::call::Caller::Direct,
            late: None,
            call_id: call.id.clone(),
            name: call.name.clone(),
            output: if index == 0 {
                ToolOutput::structured(json!({"hits": 2}))
                    .with_metadata(json!({"host_secret": "never on the wire"}))
            } else {
                ToolOutput::error("Error: no item 42")
                    .with_metadata(json!({"host_secret": "never on the wire"}))
            },
        })
        .collect()
}

fn assert_no_metadata(rendered: &Value) {
    let text = rendered.to_string();
    assert!(!text.contains("host_secret"), "metadata leaked: {text}");
}

#[test]
fn openai_chat_results_echo_each_tool_call_id() {
    let results = results_for(&calls("openai_chat.json"));
    let messages = openai_chat::results(&results);
    assert_eq!(
        messages,
        json!([
            {"role": "tool", "tool_call_id": "call_Vbq3nKp8XzT1fN0aYc2mL4dE",
             "content": r#"{"hits":2}"#},
            {"role": "tool", "tool_call_id": "call_R7uWk2sJ9eHq5gB1tZ8oP3xA",
             "content": "Error: no item 42"},
        ])
    );
    assert_no_metadata(&messages);
}

#[test]
fn openai_responses_results_echo_each_call_id() {
    let results = results_for(&calls("openai_responses.json"));
    let items = openai_responses::results(&results);
    assert_eq!(
        items[0],
        json!({"type": "function_call_output", "call_id": "call_Xk2Lm9Pq4Rs7Tu1Vw3Yz6Ab8",
               "output": r#"{"hits":2}"#})
    );
    assert_eq!(items[1]["call_id"], "call_Cd5Ef8Gh1Ij4Kl7Mn0Op3Qr6");
    assert_no_metadata(&items);
}

#[test]
fn anthropic_results_are_one_user_message_flagging_only_errors() {
    let results = results_for(&calls("anthropic.json"));
    let message = anthropic::results(&results);
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
             "content": [{"type": "text", "text": r#"{"hits":2}"#}]},
            {"type": "tool_result", "tool_use_id": "toolu_01B18r01rx01mr028946mr0",
             "content": [{"type": "text", "text": "Error: no item 42"}], "is_error": true},
        ]})
    );
    assert_no_metadata(&message);
}

#[test]
fn gemini_results_answer_by_name_and_id() {
    let read = calls("gemini.json");
    let results = results_for(&read);
    let content = gemini::results(&results);
    assert_eq!(
        content,
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "search", "id": read[0].id, "response": {"hits": 2}}},
            {"functionResponse": {"name": "set_due_date", "id": read[1].id,
                                  "response": {"error": "Error: no item 42"}}},
        ]})
    );
    assert_no_metadata(&content);
}

#[test]
fn mcp_result_carries_structured_content_and_error_flag() {
    let results = results_for(&calls("anthropic.json"));
    let ok = mcp::result(&results[0].output);
    assert_eq!(
        ok,
        json!({"content": [{"type": "text", "text": r#"{"hits":2}"#}],
               "structuredContent": {"hits": 2}, "isError": false})
    );
    let failed = mcp::result(&results[1].output);
    assert_eq!(failed["isError"], true);
    assert!(failed.get("structuredContent").is_none());
    assert_no_metadata(&ok);
    assert_no_metadata(&failed);
}

#[test]
fn an_output_without_content_is_sent_as_done() {
    let result = ToolReply {
        caller: toolset::call::Caller::Direct,
        late: None,
        call_id: "c1".into(),
        name: "archive".into(),
        output: ToolOutput::empty(),
    };
    let results = [result.clone()];
    assert_eq!(openai_chat::results(&results)[0]["content"], "Done.");
    assert_eq!(openai_responses::results(&results)[0]["output"], "Done.");
    assert_eq!(
        anthropic::results(&results)["content"][0]["content"],
        json!([{"type": "text", "text": "Done."}])
    );
    assert_eq!(
        gemini::results(&results)["parts"][0]["functionResponse"]["response"],
        json!({"output": "Done."})
    );
    assert_eq!(
        mcp::result(&result.output)["content"],
        json!([{"type": "text", "text": "Done."}])
    );
}

#[test]
fn images_go_where_the_format_allows_them() {
    let output = ToolOutput::text("chart").with_image("iVBORw0KGgo=", "image/png");
    let results = [ToolReply {
        caller: toolset::call::Caller::Direct,
        late: None,
        call_id: "c1".into(),
        name: "plot".into(),
        output: output.clone(),
    }];
    assert_eq!(
        anthropic::results(&results)["content"][0]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                           "data": "iVBORw0KGgo="}})
    );
    assert_eq!(
        mcp::result(&output)["content"][1],
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    );
    let gemini_parts = gemini::results(&results)["parts"].clone();
    assert!(
        gemini_parts
            .as_array()
            .expect("parts is an array")
            .contains(&json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}))
    );
    let chat_text = openai_chat::results(&results)[0]["content"].clone();
    assert_eq!(
        chat_text,
        "chart\n[image/png image omitted: this API carries text only]"
    );
}

// ---- action keys ---------------------------------------------------------------------

#[test]
fn action_key_ignores_key_order_and_whitespace() {
    let compact = ToolCall::new("a", "set_due_date", r#"{"id":42,"due":"2026-12-01"}"#);
    let spaced = ToolCall::new(
        "a",
        "set_due_date",
        "{\n  \"due\" : \"2026-12-01\",\n  \"id\" : 42\n}\n",
    );
    assert_eq!(compact.action_key(), spaced.action_key());
}

#[test]
fn action_key_ignores_the_call_id_and_the_provider() {
    let from_openai = &calls("openai_chat.json")[1];
    let from_anthropic = &calls("anthropic.json")[1];
    let from_gemini = &calls("gemini.json")[1];
    let from_mcp = &calls("mcp_tools_call.json")[0];
    assert_ne!(from_openai.id, from_anthropic.id);
    assert_eq!(from_openai.action_key(), from_anthropic.action_key());
    assert_eq!(from_openai.action_key(), from_gemini.action_key());
    assert_eq!(from_openai.action_key(), from_mcp.action_key());
}

#[test]
fn action_key_differs_when_name_or_arguments_differ() {
    let base = ToolCall::new("a", "set_due_date", r#"{"id":42,"due":"2026-12-01"}"#);
    let other_date = ToolCall::new("a", "set_due_date", r#"{"id":42,"due":"2026-12-02"}"#);
    let other_type = ToolCall::new("a", "set_due_date", r#"{"id":"42","due":"2026-12-01"}"#);
    let other_name = ToolCall::new("a", "set_start_date", r#"{"id":42,"due":"2026-12-01"}"#);
    let nested = ToolCall::new("a", "set_due_date", r#"{"id":42,"due":["2026-12-01"]}"#);
    for other in [&other_date, &other_type, &other_name, &nested] {
        assert_ne!(base.action_key(), other.action_key(), "{other:?}");
    }
}

#[test]
fn action_key_is_name_zero_byte_canonical_arguments() {
    let call = ToolCall::new(
        "a",
        "search",
        r#"{ "limit": 5, "query": "x", "filter": {"b": 1, "a": 2} }"#,
    );
    assert_eq!(
        call.action_key(),
        b"search\0{\"filter\":{\"a\":2,\"b\":1},\"limit\":5,\"query\":\"x\"}".to_vec()
    );
}

#[test]
fn action_key_of_malformed_arguments_is_the_trimmed_raw_text() {
    let calls = calls("openai_chat_malformed_arguments.json");
    let mut expected = b"search\0".to_vec();
    expected.extend_from_slice(calls[0].arguments.text().trim().as_bytes());
    assert_eq!(calls[0].action_key(), expected);
    let padded = ToolCall::new("x", "search", format!("  {}\n", calls[0].arguments));
    assert_eq!(padded.action_key(), calls[0].action_key());
}
