//! The spans toolset records, as the real OpenTelemetry SDK exports them
//! (`tracing-opentelemetry` into `opentelemetry_sdk`'s in-memory exporter): the GenAI
//! "execute tool" convention's names, kind and attributes on every call, the gate's span
//! with a span for each call it rejected, proposals as events, content only when the host
//! opts in, each report entry's duration, and the MCP server's request spans continuing
//! the caller's trace from `_meta.traceparent`.

use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;
use toolset::prelude::*;
use toolset::report::Report;
use toolset::{Autonomy, ToolCall, ToolContext, ToolError, tool, toolset};
use tracing_subscriber::layer::SubscriberExt;

/// The test agent's state.
#[derive(Default)]
pub struct Files {
    filed: Vec<String>,
}

/// Look a word up.
#[tool(tier = "read_only")]
pub async fn lookup(files: &Files, word: String) -> String {
    tracing::info!("looking up");
    format!("{word}: {} filed", files.filed.len())
}

/// File a note; fails on "fail", skips on "same", takes a while on "slow".
#[tool(tier = "reversible")]
pub async fn file(files: &mut Files, note: String) -> Result<String, ToolError> {
    match note.as_str() {
        "fail" => Err(ToolError::failed("the cabinet is locked")),
        "same" => Err(ToolError::skipped("already filed")),
        _ => {
            if note == "slow" {
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
            files.filed.push(note);
            Ok("filed".to_owned())
        }
    }
}

/// Send the notes away for good.
#[tool(tier = "irreversible")]
pub async fn send(files: &mut Files, to: String) -> String {
    files.filed.clear();
    format!("sent to {to}")
}

toolset! {
    /// The test agent's tools.
    pub FileTools<Files> = [lookup, file, send];
}

/// Runs `work` on a current-thread runtime with an OpenTelemetry layer as this thread's
/// subscriber, and returns what it gave and every span exported, in the order they ended.
fn recorded<F: Future>(work: impl FnOnce() -> F) -> (F::Output, Vec<SpanData>) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    // Only the attributes toolset records: no code location, thread or busy/idle times.
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("tracing_otel"))
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false);
    let subscriber = tracing_subscriber::registry().with(layer);
    let runtime = tokio::runtime::Builder::new_current_thread()
        // Time for the handlers, I/O for the proxied MCP server's pipes.
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let output = tracing::subscriber::with_default(subscriber, || runtime.block_on(work()));
    let spans = exporter
        .get_finished_spans()
        .expect("the in-memory exporter holds the spans");
    (output, spans)
}

/// Gates `calls` at `autonomy` and applies the plan with `ctx`.
async fn run(calls: Vec<ToolCall>, autonomy: Autonomy, ctx: ToolContext) -> Report {
    let plan = FileTools::gate(calls, autonomy).expect("the program is valid");
    FileTools::apply(&mut Files::default(), &ctx, plan).await
}

/// A span's attributes by key.
fn attributes(span: &SpanData) -> BTreeMap<String, Value> {
    span.attributes
        .iter()
        .map(|KeyValue { key, value, .. }| (key.to_string(), value.clone()))
        .collect()
}

/// The text of an attribute, if the span has it.
fn text(span: &SpanData, key: &str) -> Option<String> {
    attributes(span).get(key).map(Value::to_string)
}

/// The one span named `name`.
fn span<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found: Vec<&SpanData> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(found.len(), 1, "spans named {name:?} in {spans:#?}");
    found[0]
}

/// Asserts that `span` continues the trace of [`TRACEPARENT`]: the caller's trace id,
/// the caller's (remote) span as its parent; returns that trace id.
fn continues_the_caller(span: &SpanData) -> opentelemetry::trace::TraceId {
    let expected_trace = opentelemetry::trace::TraceId::from_bytes(
        toolset::mcp::TraceParent::parse(TRACEPARENT)
            .expect("a valid traceparent")
            .trace_id(),
    );
    assert_eq!(span.span_context.trace_id(), expected_trace, "{span:#?}");
    assert_eq!(span.parent_span_id.to_string(), "b7ad6b7169203331");
    assert!(span.parent_span_is_remote, "{span:#?}");
    expected_trace
}

/// The GenAI attributes (`gen_ai.*`) of a span, as text.
fn gen_ai(span: &SpanData) -> BTreeMap<String, String> {
    attributes(span)
        .into_iter()
        .filter(|(key, _)| key.starts_with("gen_ai."))
        .map(|(key, value)| (key, value.to_string()))
        .collect()
}

fn expected(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

#[test]
fn every_applied_call_is_an_internal_execute_tool_span_with_exactly_the_genai_attributes() {
    let calls = vec![
        ToolCall::new("c1", "lookup", r#"{"word":"tax"}"#),
        ToolCall::new("c2", "file", r#"{"note":"receipt"}"#),
    ];
    let (report, spans) = recorded(|| run(calls, Autonomy::Reversible, ToolContext::default()));
    assert!(
        report
            .entries()
            .iter()
            .all(|entry| entry.outcome.as_ref().is_some_and(|o| o.is_done()))
    );

    let lookup = span(&spans, "execute_tool lookup");
    assert_eq!(lookup.span_kind, SpanKind::Internal);
    assert_eq!(
        gen_ai(lookup),
        expected(&[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "lookup"),
            ("gen_ai.tool.call.id", "c1"),
            ("gen_ai.tool.description", "Look a word up."),
            ("gen_ai.tool.type", "function"),
        ])
    );
    assert_eq!(text(lookup, "toolset.outcome").as_deref(), Some("done"));
    assert_eq!(text(lookup, "error.type"), None);
    assert_eq!(lookup.status, Status::Unset);
    // The span is current while the handler runs: what the handler records is inside it.
    let names: Vec<&str> = lookup
        .events
        .events
        .iter()
        .map(|event| event.name.as_ref())
        .collect();
    assert_eq!(names, ["looking up"]);

    let file = span(&spans, "execute_tool file");
    assert_eq!(file.span_kind, SpanKind::Internal);
    assert_eq!(text(file, "gen_ai.tool.call.id").as_deref(), Some("c2"));
    // The gate's own span says what it decided.
    let gate = span(&spans, "gate");
    assert_eq!(text(gate, "toolset.gate.approved").as_deref(), Some("2"));
    assert_eq!(text(gate, "toolset.gate.rejected").as_deref(), Some("0"));
}

/// A runtime tool of a toolbox over `FileTools`, with its own handler.
fn weather() -> toolset::DynamicTool {
    async fn forecast(args: serde_json::Value, _ctx: &ToolContext) -> String {
        format!("sunny in {}", args["city"].as_str().unwrap_or("?"))
    }
    toolset::DynamicTool::new("weather", toolset::Tier::ReadOnly, "Today's weather.")
        .input_schema(serde_json::json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
        }))
        .handler(forecast)
}

/// Gates `calls` at `read_only` through `toolbox` and applies them.
async fn run_toolbox(toolbox: &toolset::Toolbox<FileTools>, calls: Vec<ToolCall>) -> Report {
    let plan = toolbox
        .request(&FileTools::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .gate(calls)
        .expect("the program is valid");
    FileTools::apply(&mut Files::default(), &ToolContext::default(), plan).await
}

#[test]
fn a_runtime_tools_execute_tool_span_is_a_function_like_a_compiled_ones() {
    let toolbox = FileTools::toolbox()
        .with(weather())
        .expect("the runtime tool registers");
    let calls = vec![
        ToolCall::new("c1", "lookup", r#"{"word":"tax"}"#),
        ToolCall::new("c2", "weather", r#"{"city":"Oslo"}"#),
    ];
    let (report, spans) = recorded(|| run_toolbox(&toolbox, calls));
    assert!(report.outcomes().all(|(_, outcome)| outcome.is_done()));
    let weather = span(&spans, "execute_tool weather");
    assert_eq!(weather.span_kind, SpanKind::Internal);
    assert_eq!(
        gen_ai(weather),
        expected(&[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "weather"),
            ("gen_ai.tool.call.id", "c2"),
            ("gen_ai.tool.description", "Today's weather."),
            ("gen_ai.tool.type", "function"),
        ])
    );
    let lookup = span(&spans, "execute_tool lookup");
    assert_eq!(
        text(lookup, "gen_ai.tool.type").as_deref(),
        Some("function")
    );
}

#[cfg(feature = "mcp-client")]
#[test]
fn a_proxied_mcp_tools_execute_tool_span_is_an_extension() {
    let (report, spans) = recorded(|| async {
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
        let fixture = toolset::toolbox::McpTools::connect_stdio("fix", command)
            .await
            .expect("the fixture server starts")
            .tier_of("echo", toolset::Tier::ReadOnly);
        let toolbox = FileTools::toolbox()
            .with(weather())
            .and_then(|toolbox| toolbox.with_namespace(fixture))
            .expect("the tools register");
        let calls = vec![
            ToolCall::new("c1", "fix_echo", r#"{"text":"hi"}"#),
            ToolCall::new("c2", "weather", r#"{"city":"Oslo"}"#),
        ];
        run_toolbox(&toolbox, calls).await
    });
    assert!(
        report.outcomes().all(|(_, outcome)| outcome.is_done()),
        "{:?}",
        report.entries()
    );
    let echo = span(&spans, "execute_tool fix_echo");
    assert_eq!(echo.span_kind, SpanKind::Internal);
    assert_eq!(text(echo, "gen_ai.tool.type").as_deref(), Some("extension"));
    assert_eq!(text(echo, "gen_ai.tool.call.id").as_deref(), Some("c1"));
    // Beside it, a runtime tool with its own handler is still a function.
    let weather = span(&spans, "execute_tool weather");
    assert_eq!(
        text(weather, "gen_ai.tool.type").as_deref(),
        Some("function")
    );
}

#[test]
fn a_failed_call_records_its_error_type_and_an_error_status_and_a_skip_does_not() {
    let calls = vec![
        ToolCall::new("bad", "file", r#"{"note":"fail"}"#),
        ToolCall::new("dup", "file", r#"{"note":"same"}"#),
    ];
    let (report, spans) = recorded(|| run(calls, Autonomy::Reversible, ToolContext::default()));
    let kinds: Vec<&str> = report
        .outcomes()
        .map(|(_, outcome)| outcome.kind())
        .collect();
    assert_eq!(kinds, ["failed", "skipped"]);

    let by_id = |id: &str| {
        spans
            .iter()
            .find(|span| text(span, "gen_ai.tool.call.id").as_deref() == Some(id))
            .unwrap_or_else(|| panic!("no span for call {id} in {spans:#?}"))
    };
    let failed = by_id("bad");
    assert_eq!(text(failed, "toolset.outcome").as_deref(), Some("failed"));
    assert_eq!(text(failed, "error.type").as_deref(), Some("failed"));
    // The handler's message is not exported unless the host opts in.
    assert!(matches!(&failed.status, Status::Error { description } if description.is_empty()));

    let skipped = by_id("dup");
    assert_eq!(text(skipped, "toolset.outcome").as_deref(), Some("skipped"));
    assert_eq!(text(skipped, "error.type"), None);
    assert_eq!(skipped.status, Status::Unset);
}

#[test]
fn a_call_the_gate_rejected_is_exported_as_a_span_and_an_event_with_its_problem_kind() {
    let calls = vec![
        ToolCall::new("ok", "lookup", r#"{"word":"tax"}"#),
        ToolCall::new("typo", "file", r#"{"note":7}"#),
    ];
    let (rejected, spans) = recorded(|| async {
        FileTools::gate(calls, Autonomy::Reversible).expect_err("a call has bad arguments")
    });
    assert_eq!(rejected.problems().len(), 1);

    let gate = span(&spans, "gate");
    assert_eq!(text(gate, "toolset.gate.calls").as_deref(), Some("2"));
    assert_eq!(text(gate, "toolset.gate.approved").as_deref(), Some("0"));
    assert_eq!(text(gate, "toolset.gate.proposed").as_deref(), Some("0"));
    assert_eq!(text(gate, "toolset.gate.rejected").as_deref(), Some("1"));
    assert!(matches!(gate.status, Status::Error { .. }));
    let events: Vec<_> = gate.events.events.iter().collect();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].name, "toolset.call.rejected");
    let fields: BTreeMap<String, String> = events[0]
        .attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect();
    assert_eq!(
        fields.get("gen_ai.tool.call.id").map(String::as_str),
        Some("typo")
    );
    assert_eq!(
        fields.get("toolset.problem").map(String::as_str),
        Some("invalid_arguments")
    );

    // The rejected call has its own execute_tool span, under the gate's, marked failed.
    let typo = span(&spans, "execute_tool file");
    assert_eq!(typo.parent_span_id, gate.span_context.span_id());
    assert_eq!(
        gen_ai(typo),
        expected(&[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "file"),
            ("gen_ai.tool.call.id", "typo"),
            (
                "gen_ai.tool.description",
                r#"File a note; fails on "fail", skips on "same", takes a while on "slow"."#
            ),
            ("gen_ai.tool.type", "function"),
        ])
    );
    assert_eq!(
        text(typo, "error.type").as_deref(),
        Some("invalid_arguments")
    );
    assert_eq!(text(typo, "toolset.outcome").as_deref(), Some("rejected"));
    assert!(matches!(typo.status, Status::Error { .. }));
    // The valid call of the rejected program never ran: no span.
    assert!(spans.iter().all(|span| span.name != "execute_tool lookup"));
}

#[test]
fn a_call_to_an_unknown_tool_is_exported_under_the_name_the_model_used() {
    let calls = vec![ToolCall::new("u1", "shred", "{}")];
    let (_, spans) = recorded(|| async { FileTools::gate(calls, Autonomy::Reversible).is_err() });
    let shred = span(&spans, "execute_tool shred");
    assert_eq!(text(shred, "error.type").as_deref(), Some("unknown_tool"));
    assert_eq!(text(shred, "gen_ai.tool.description"), None);
}

#[test]
fn arguments_and_results_are_exported_only_when_the_host_opts_in() {
    let calls = || {
        vec![
            ToolCall::new("c1", "lookup", r#"{"word":"secret"}"#),
            ToolCall::new("c2", "file", r#"{"note":"fail"}"#),
        ]
    };
    let (_, quiet) = recorded(|| run(calls(), Autonomy::Reversible, ToolContext::default()));
    for span in &quiet {
        let keys = attributes(span);
        assert!(
            !keys.contains_key("gen_ai.tool.call.arguments"),
            "{span:#?}"
        );
        assert!(!keys.contains_key("gen_ai.tool.call.result"), "{span:#?}");
        if let Status::Error { description } = &span.status {
            assert!(description.is_empty(), "{span:#?}");
        }
    }

    let ctx = ToolContext::default().with_traced_content(true);
    let (_, open) = recorded(|| run(calls(), Autonomy::Reversible, ctx));
    let lookup = span(&open, "execute_tool lookup");
    assert_eq!(
        text(lookup, "gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"word":"secret"}"#)
    );
    assert_eq!(
        text(lookup, "gen_ai.tool.call.result").as_deref(),
        Some("secret: 0 filed")
    );
    let file = span(&open, "execute_tool file");
    assert!(
        matches!(&file.status, Status::Error { description } if description == "the cabinet is locked"),
        "{file:#?}"
    );
}

#[test]
fn the_gate_counts_proposals_and_records_each_as_an_event() {
    let calls = vec![
        ToolCall::new("c1", "file", r#"{"note":"memo"}"#),
        ToolCall::new("c2", "send", r#"{"to":"archive"}"#),
    ];
    let (report, spans) = recorded(|| run(calls, Autonomy::Reversible, ToolContext::default()));
    assert!(report.entries()[1].outcome.is_none());

    let gate = span(&spans, "gate");
    assert_eq!(text(gate, "toolset.gate.approved").as_deref(), Some("1"));
    assert_eq!(text(gate, "toolset.gate.proposed").as_deref(), Some("1"));
    let created: Vec<_> = gate
        .events
        .events
        .iter()
        .filter(|event| event.name == "toolset.proposal.created")
        .collect();
    assert_eq!(created.len(), 1);
    assert!(
        created[0]
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "gen_ai.tool.call.id" && kv.value.to_string() == "c2")
    );
    // The proposed call did not run: no execute_tool span for it.
    assert!(spans.iter().all(|span| span.name != "execute_tool send"));
}

#[test]
fn every_report_entry_that_ran_carries_its_duration_and_a_proposed_one_none() {
    let calls = vec![
        ToolCall::new("c1", "file", r#"{"note":"slow"}"#),
        ToolCall::new("c2", "send", r#"{"to":"archive"}"#),
    ];
    let (report, _) = recorded(|| run(calls, Autonomy::Reversible, ToolContext::default()));
    let durations: Vec<Option<Duration>> = report
        .entries()
        .iter()
        .map(|entry| entry.duration)
        .collect();
    assert!(
        durations[0].is_some_and(|took| took >= Duration::from_millis(30)),
        "{durations:?}"
    );
    assert_eq!(durations[1], None);
}

#[test]
fn an_approval_acted_on_is_an_event_of_the_hosts_span() {
    let calls = vec![ToolCall::new("c1", "send", r#"{"to":"archive"}"#)];
    let (resolved, spans) = recorded(|| async {
        let plan = FileTools::gate(calls, Autonomy::Reversible).expect("the program is valid");
        let proposal = plan.proposals()[0].clone();
        let approvals = toolset::Approvals::new(toolset::MemoryStore::new());
        approvals
            .submit(&proposal)
            .expect("a memory store takes the proposal");
        let policy = FileTools::policy(Autonomy::Off);
        tracing::info_span!("review").in_scope(|| {
            approvals
                .approve(
                    &proposal.reviewed(),
                    &toolset::request::Request::new(&policy),
                )
                .is_ok()
        })
    });
    assert!(resolved);
    let review = span(&spans, "review");
    let events: Vec<_> = review.events.events.iter().collect();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].name, "toolset.proposal.resolved");
    assert!(
        events[0]
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "toolset.resolution" && kv.value.to_string() == "run")
    );
}

/// The caller's trace, as a client sends it in `_meta`.
const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

#[test]
fn an_mcp_tools_call_is_a_server_span_continuing_the_callers_traceparent() {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, RequestMetaObject, RequestParamsMeta};
    use toolset::mcp::McpServer;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let server = McpServer::<FileTools>::new(Files::default())
        .with_autonomy(Autonomy::Reversible)
        .with_trace_parent(|span, parent| {
            let remote = SpanContext::new(
                TraceId::from_bytes(parent.trace_id()),
                SpanId::from_bytes(parent.parent_id()),
                TraceFlags::new(parent.flags()),
                true,
                TraceState::default(),
            );
            let parent = opentelemetry::Context::new().with_remote_span_context(remote);
            span.set_parent(parent).expect("the span has not started");
        });
    let (answer, spans) = recorded(|| async move {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move {
            let _ = server.serve(server_io).await;
        });
        let client = ().serve(client_io).await.expect("the client connects");
        let mut meta = RequestMetaObject::new();
        meta.set_traceparent(TRACEPARENT);
        let mut params = CallToolRequestParams::new("file");
        params.arguments = serde_json::json!({"note": "memo"}).as_object().cloned();
        params.set_meta(meta);
        let answer = client
            .call_tool(params)
            .await
            .expect("the call is answered");
        let _ = client.cancel().await;
        let _ = serving.await;
        answer
    });
    assert!(format!("{answer:?}").contains("filed"), "{answer:?}");

    let request = span(&spans, "tools/call file");
    assert_eq!(request.span_kind, SpanKind::Server);
    assert_eq!(
        text(request, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(text(request, "gen_ai.tool.name").as_deref(), Some("file"));
    assert_eq!(
        text(request, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert!(
        text(request, "jsonrpc.request.id").is_some(),
        "{request:#?}"
    );
    // The caller's trace goes on: same trace id, the caller's span as the parent.
    let expected_trace = continues_the_caller(request);
    // The call's own span is the request's child, in the same trace.
    let call = span(&spans, "execute_tool file");
    assert_eq!(call.parent_span_id, request.span_context.span_id());
    assert_eq!(call.span_context.trace_id(), expected_trace);
}

#[test]
fn initialize_and_ping_are_server_spans_and_a_pings_traceparent_is_continued() {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use rmcp::ServiceExt;
    use rmcp::model::{ClientRequest, GetMeta, PingRequest};
    use toolset::mcp::McpServer;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let server = McpServer::<FileTools>::new(Files::default()).with_trace_parent(|span, parent| {
        let remote = SpanContext::new(
            TraceId::from_bytes(parent.trace_id()),
            SpanId::from_bytes(parent.parent_id()),
            TraceFlags::new(parent.flags()),
            true,
            TraceState::default(),
        );
        let parent = opentelemetry::Context::new().with_remote_span_context(remote);
        span.set_parent(parent).expect("the span has not started");
    });
    let ((), spans) = recorded(|| async move {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move {
            let _ = server.serve(server_io).await;
        });
        let client = ().serve(client_io).await.expect("the client initializes");
        let mut ping = ClientRequest::PingRequest(PingRequest::default());
        ping.get_meta_mut().set_traceparent(TRACEPARENT);
        client
            .send_request(ping)
            .await
            .expect("the ping is answered");
        let _ = client.cancel().await;
        let _ = serving.await;
    });

    for (name, method) in [("initialize", "initialize"), ("ping", "ping")] {
        let request = span(&spans, name);
        assert_eq!(request.span_kind, SpanKind::Server, "{request:#?}");
        assert_eq!(text(request, "mcp.method.name").as_deref(), Some(method));
        assert!(
            text(request, "jsonrpc.request.id").is_some(),
            "{request:#?}"
        );
        assert_eq!(text(request, "error.type"), None, "{request:#?}");
    }
    // The ping carried the caller's trace; the initialize did not, so it is a root.
    let ping = span(&spans, "ping");
    let expected_trace = continues_the_caller(ping);
    let initialize = span(&spans, "initialize");
    assert_ne!(initialize.span_context.trace_id(), expected_trace);
    assert_eq!(initialize.parent_span_id, SpanId::INVALID);
}
