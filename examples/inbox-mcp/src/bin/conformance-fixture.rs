//! The tools the MCP conformance suite's tool scenarios call
//! (`@modelcontextprotocol/conformance`, `tools-*` and `json-schema-2020-12`), declared
//! with `#[tool]` and served over streamable HTTP by `toolset::mcp::McpServer`.
//!
//! ```text
//! cargo run -p inbox-mcp --bin conformance-fixture -- 127.0.0.1:8932
//! ```
//!
//! Used by `tests/mcp/conformance.sh`. The sampling and elicitation tools ask the client
//! through their context (`ToolContext::sample`, `ToolContext::elicit`): server requests
//! over the session before 2026-07-28. `test_custom_header` mirrors its argument into a
//! header (`#[mcp_header]`). The `input_required` scenarios' tools (2026-07-28,
//! `test_input_required_result_*`) ask the same way; on that revision each ask the client
//! has not answered yet is a round of `input_required`, and the retry runs the handler
//! again with the answers.

use serde_json::{Value, json};
use std::process::ExitCode;
use std::time::Duration;
use toolset::context::{Form, FormAnswer, LogLevel, Sampling};
use toolset::mcp::{HttpConfig, McpServer};
use toolset::prelude::*;
use toolset::{DynamicTool, Tier, ToolContext, ToolError, ToolOutput, tool, toolset};

/// A 1×1 transparent PNG.
const PIXEL: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// A WAV file of eight silent 8-bit samples at 8 kHz, mono.
const SILENCE: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// Return a simple text.
#[tool(tier = "read_only")]
pub async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Return an image.
#[tool(tier = "read_only")]
pub async fn test_image_content() -> ToolOutput {
    ToolOutput::empty().with_image(PIXEL, "image/png")
}

/// Return audio.
#[tool(tier = "read_only")]
pub async fn test_audio_content() -> ToolOutput {
    ToolOutput::empty().with_audio(SILENCE, "audio/wav")
}

/// Return an embedded resource.
#[tool(tier = "read_only")]
pub async fn test_embedded_resource() -> ToolOutput {
    ToolOutput::empty().with_resource(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    )
}

/// Return text, an image and an embedded resource.
#[tool(tier = "read_only")]
pub async fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::text("Multiple content types test:")
        .with_image(PIXEL, "image/png")
        .with_resource(
            "test://mixed-content-resource",
            Some("application/json"),
            r#"{"test":"data","value":123}"#,
        )
}

/// Fail on purpose.
#[tool(tier = "read_only")]
pub async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

/// Report progress 0, 50 and 100 of 100.
#[tool(tier = "read_only")]
pub async fn test_tool_with_progress(ctx: &ToolContext) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), None);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress test completed"
}

/// Log three messages at `info`, 50 ms apart.
#[tool(tier = "read_only")]
pub async fn test_tool_with_logging(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed"
}

/// Ask the client's model to answer `prompt`, in at most 100 tokens.
#[tool(tier = "read_only")]
pub async fn test_sampling(ctx: &ToolContext, prompt: String) -> Result<String, ToolError> {
    let sampled = ctx.sample(Sampling::new(prompt, 100)).await?;
    Ok(format!(
        "LLM response: {}",
        sampled.text.unwrap_or_default()
    ))
}

/// Ask the user for a username and an email address, showing `message`.
#[tool(tier = "read_only")]
pub async fn test_elicitation(ctx: &ToolContext, message: String) -> Result<String, ToolError> {
    let form = Form::new(
        message,
        json!({
            "type": "object",
            "properties": {
                "username": { "type": "string", "description": "User's response" },
                "email": { "type": "string", "description": "User's email address" }
            },
            "required": ["username", "email"]
        }),
    );
    let answer = ctx.elicit(form).await?;
    Ok(format!("User response: {}", answered(&answer)))
}

/// Ask the user to fill in a form whose every primitive type has a default (SEP-1034).
#[tool(tier = "read_only")]
pub async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = Form::new(
        "Please review and update the form fields with defaults",
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "User name", "default": "John Doe" },
                "age": { "type": "integer", "description": "User age", "default": 30 },
                "score": { "type": "number", "description": "User score", "default": 95.5 },
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": { "type": "boolean", "description": "Verification status", "default": true }
            }
        }),
    );
    let answer = ctx.elicit(form).await?;
    Ok(format!("Elicitation completed: {}", answered(&answer)))
}

/// Ask the user to choose in each of the five enum shapes of SEP-1330.
#[tool(tier = "read_only")]
pub async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = Form::new(
        "Please select options from the enum fields",
        json!({
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        { "const": "value1", "title": "First Option" },
                        { "const": "value2", "title": "Second Option" },
                        { "const": "value3", "title": "Third Option" }
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            { "const": "value1", "title": "First Choice" },
                            { "const": "value2", "title": "Second Choice" },
                            { "const": "value3", "title": "Third Choice" }
                        ]
                    }
                }
            }
        }),
    );
    let answer = ctx.elicit(form).await?;
    Ok(format!("Elicitation completed: {}", answered(&answer)))
}

/// The user's answer as the suite's tools write it: `action=..., content={...}`.
fn answered(answer: &FormAnswer) -> String {
    let content = answer.content.clone().map_or(Value::Null, Value::Object);
    format!("action={}, content={content}", answer.action.as_str())
}

/// The input schema of `json_schema_2020_12_tool`, as the suite gives it: `$schema`,
/// `$defs` with an `$anchor`, `allOf`/`anyOf` and `if`/`then`/`else`, which no
/// `#[tool]`'s arguments produce, so the tool is a runtime one.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

/// Say which region was asked for: the tool of `http-custom-header-server-validation`
/// (2026-07-28), its `region` mirrored into the `Mcp-Param-Region` header, which the
/// server checks against the body before the handler runs.
#[tool(tier = "read_only")]
pub async fn test_custom_header(
    /// The region to report on.
    #[mcp_header("Region")]
    region: String,
) -> String {
    format!("region {region}")
}

/// The name form of the `input_required` scenarios.
fn name_form(message: &str, key: &str) -> Form {
    Form::new(
        message,
        json!({
            "type": "object",
            "properties": { "name": { "type": "string" } },
            "required": ["name"]
        }),
    )
    .with_key(key)
}

/// The field `field` of an accepted form's answer, as text.
fn field(answer: &FormAnswer, field: &str) -> String {
    answer
        .accepted()
        .and_then(|content| content.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// Greet the user by the name they give (`input-required-result-basic-elicitation`,
/// `result-type`, and the suite's checks of the responses a retry carries).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_elicitation(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(name_form("What is your name?", "user_name"))
        .await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

/// Ask the client's model a question (`input-required-result-basic-sampling`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_sampling(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampling = Sampling::new("What is the capital of France?", 50).with_key("capital");
    let sampled = ctx.sample(sampling).await?;
    Ok(format!(
        "The model said: {}",
        sampled.text.unwrap_or_default()
    ))
}

/// List the client's roots (`input-required-result-basic-list-roots`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_list_roots(ctx: &ToolContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Ask for a confirmation; the retry's answer reaches the handler only through the
/// sealed `requestState` (`input-required-result-request-state`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_request_state(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let form = Form::new(
        "Please confirm",
        json!({
            "type": "object",
            "properties": { "ok": { "type": "boolean" } },
            "required": ["ok"]
        }),
    )
    .with_key("confirm");
    let answer = ctx.elicit(form).await?;
    let ok = answer
        .accepted()
        .and_then(|content| content.get("ok"))
        .and_then(Value::as_bool);
    Ok(format!("state-ok: confirmed {}", ok.unwrap_or(false)))
}

/// Ask the user, the client's model and the client's roots at once: one round of three
/// requests (`input-required-result-multiple-input-requests`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_multiple_inputs(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let (user, greeting, roots) = tokio::join!(
        ctx.elicit(name_form("What is your name?", "user_name")),
        ctx.sample(Sampling::new("Generate a greeting", 50).with_key("greeting")),
        ctx.roots(),
    );
    Ok(format!(
        "{} / {} / {} roots",
        field(&user?, "name"),
        greeting?.text.unwrap_or_default(),
        roots?.len()
    ))
}

/// Ask two questions, one after the other: two rounds
/// (`input-required-result-multi-round`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_multi_round(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let name = ctx
        .elicit(name_form("Step 1: What is your name?", "step1"))
        .await?;
    let color = Form::new(
        "Step 2: What is your favorite color?",
        json!({
            "type": "object",
            "properties": { "color": { "type": "string" } },
            "required": ["color"]
        }),
    )
    .with_key("step2");
    let color = ctx.elicit(color).await?;
    Ok(format!(
        "{} likes {}",
        field(&name, "name"),
        field(&color, "color")
    ))
}

/// Ask for a confirmation; a retry whose `requestState` was altered is refused
/// (`input-required-result-tampered-state`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_tampered_state(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    test_input_required_result_request_state(ctx).await
}

/// Ask the user and the client's model: a client that declared only sampling is asked
/// only that (`input-required-result-capability-check`).
#[tool(tier = "read_only")]
pub async fn test_input_required_result_capabilities(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let (user, model) = tokio::join!(
        ctx.elicit(name_form("What is your name?", "user_name")),
        ctx.sample(Sampling::new("Say hello", 20).with_key("hello")),
    );
    let user = user.map_or_else(|error| error.to_string(), |answer| field(&answer, "name"));
    Ok(format!("{user} / {}", model?.text.unwrap_or_default()))
}

/// Ask the client's model, which this tool cannot do without: a client that did not
/// declare sampling is answered `-32021` (`server-stateless`).
#[tool(tier = "read_only")]
pub async fn test_missing_capability(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample(Sampling::new("Say hello", 20)).await?;
    Ok(sampled.text.unwrap_or_default())
}

/// Ask the user a question mid-call: on 2026-07-28 a round of `input_required`, never a
/// request of the server's own on the response stream (`server-stateless`).
#[tool(tier = "read_only")]
pub async fn test_streaming_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(name_form("What is your name?", "user_name"))
        .await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

/// Log a message: sent only to a request that asked for a log level
/// (`server-stateless`).
#[tool(tier = "read_only")]
pub async fn test_logging_tool(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "a message from test_logging_tool");
    "logged"
}

/// Take longer than the server holds a call's stream (200 ms), and less than twice that:
/// the stream is closed mid-call, and the client's first resume gets the result
/// (`server-sse-polling`, SEP-1699).
#[tool(tier = "read_only")]
pub async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(300)).await;
    "reconnected"
}

/// Echoes its arguments.
async fn echo_arguments(arguments: Value, _ctx: &ToolContext) -> String {
    arguments.to_string()
}

toolset! {
    /// The conformance suite's fixture tools.
    pub ConformanceTools = [
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_error_handling,
        test_tool_with_progress,
        test_tool_with_logging,
        test_sampling,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_custom_header,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_missing_capability,
        test_streaming_elicitation,
        test_logging_tool,
        test_reconnection,
    ];
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(addr) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-fixture HOST:PORT");
        return ExitCode::from(2);
    };
    let toolbox = ConformanceTools::toolbox().with(
        DynamicTool::new(
            "json_schema_2020_12_tool",
            Tier::ReadOnly,
            "Tool with JSON Schema 2020-12 features",
        )
        .input_schema(json_schema_2020_12())
        .handler(echo_arguments),
    );
    let toolbox = match toolbox {
        Ok(toolbox) => toolbox,
        Err(error) => {
            eprintln!("conformance-fixture: {error}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("conformance-fixture: serving MCP at http://{addr}/mcp");
    match McpServer::<ConformanceTools>::new(())
        .with_toolbox(toolbox)
        // A call's stream is closed after 200 ms, for the client to resume (SEP-1699).
        .serve_http(
            addr,
            HttpConfig::new().with_sse_polling(Duration::from_millis(200)),
        )
        .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-fixture: {error}");
            ExitCode::FAILURE
        }
    }
}
