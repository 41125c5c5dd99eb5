//! A handler asks through its context (`ToolContext::elicit`, `sample`, `roots`) and logs
//! (`ToolContext::log`); served over MCP to rmcp's own client over an in-memory pipe, each
//! ask is a request to the client over the session, made only when the client declared
//! its capability; a client that did not is never asked, and the handler reads which
//! capability was missing. The TypeScript and Python SDKs' clients check the same over
//! stdio and streamable HTTP against the `mcp_asking` binary
//! (`tests/mcp/typescript/asking_client.mjs`, needing `npm ci --prefix tests/mcp/typescript`;
//! `tests/mcp/asking_client.py`, needing `pip install -r tests/mcp/requirements.txt`); the
//! Python SDK's on 2026-07-28 too, where each ask is a round of `input_required` its
//! `Client` drives (`mcp_asking_rounds.rs` checks the rounds themselves). Outside MCP the
//! same handler reads "not available".
#![allow(
    deprecated,
    reason = "rmcp marks logging, sampling and roots deprecated (SEP-2577); served before 2026-07-28"
)]

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, ListRootsResult, LoggingMessageNotificationParam,
    Root as McpRoot, SamplingMessage,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolset::ToolContext;
use toolset::context::{AskError, Asking, Sampling};
use toolset::mcp::McpServer;
use toolset_tests::asking::{CuriousTools, form};
use toolset_tests::mcp_result::{client_config, text};

/// What the client was asked and sent, in order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Value>>>);

impl Seen {
    fn push(&self, value: Value) {
        self.0.lock().expect("not poisoned").push(value);
    }
    fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

/// A client declaring the capabilities `declares` (a subset of elicitation, sampling and
/// roots) and answering whatever it is asked; it records each ask, whether declared or
/// not, so a test sees an ask that should never have come.
#[derive(Clone)]
struct Client {
    declares: &'static [&'static str],
    seen: Seen,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities: serde_json::Map<String, Value> = self
            .declares
            .iter()
            .map(|capability| ((*capability).to_owned(), json!({})))
            .collect();
        client_config("2025-11-25", Value::Object(capabilities), "asking-test")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = serde_json::to_value(&request).expect("a request serializes");
        self.seen.push(json!({"elicitation": request}));
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"folder": "work"})))
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let request = serde_json::to_value(&request).expect("a request serializes");
        self.seen.push(json!({"sampling": request}));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("three unread"),
            "test-model".to_owned(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.seen.push(json!({"roots": {}}));
        Ok(ListRootsResult::new(vec![McpRoot::new(
            "file:///home/ada/mail",
        )]))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.push(json!({"log": params.data}));
    }
}

/// A client declaring `declares`, connected to a fresh server through an in-memory pipe.
async fn connect(declares: &'static [&'static str]) -> (RunningService<RoleClient, Client>, Seen) {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(McpServer::<CuriousTools>::new(()).serve(server_io));
    let seen = Seen::default();
    let client = Client {
        declares,
        seen: seen.clone(),
    }
    .serve(client_io)
    .await
    .expect("the client connects");
    (client, seen)
}

/// Calls `curious`: its three lines, and what the client saw meanwhile.
async fn call_curious(declares: &'static [&'static str]) -> (Vec<String>, Vec<Value>) {
    let (client, seen) = connect(declares).await;
    let result = client
        .call_tool(rmcp::model::CallToolRequestParams::new("curious"))
        .await
        .expect("the call answers");
    // Notifications are handled in tasks of their own: give the log the time to land.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let lines = text(&result).lines().map(str::to_owned).collect();
    (lines, seen.take())
}

#[tokio::test]
async fn a_handler_logs_elicits_samples_and_reads_roots_through_a_client_that_declared_each() {
    let (lines, seen) = call_curious(&["elicitation", "sampling", "roots"]).await;
    assert_eq!(
        lines,
        [
            r#"user: accept Some({"folder": String("work")})"#,
            r#"model: test-model Some("three unread")"#,
            r#"roots: ["file:///home/ada/mail"]"#,
        ]
    );
    // The client was asked exactly what the handler asked, the form's default kept.
    let elicitation = seen
        .iter()
        .find_map(|seen| seen.get("elicitation"))
        .expect("the client was asked to show the form");
    assert_eq!(elicitation["message"], "Which folder?");
    assert_eq!(
        elicitation["requestedSchema"]["properties"]["folder"]["default"],
        "inbox"
    );
    let sampling = seen
        .iter()
        .find_map(|seen| seen.get("sampling"))
        .expect("the client's model was asked");
    assert_eq!(sampling["maxTokens"], 50);
    assert_eq!(
        sampling["messages"][0]["content"]["text"],
        "Summarize the inbox"
    );
    assert!(seen.iter().any(|seen| seen.get("roots").is_some()));
    assert!(
        seen.contains(&json!({"log": "asking the client"})),
        "the log message reached the client: {seen:?}"
    );
}

#[tokio::test]
async fn a_client_that_lacks_a_capability_is_never_asked_for_it_and_the_handler_reads_which() {
    let all = ["elicitation", "sampling", "roots"];
    let cases: [&'static [&'static str]; 3] = [
        &["sampling", "roots"],
        &["elicitation", "roots"],
        &["elicitation", "sampling"],
    ];
    for (missing, declares) in all.into_iter().zip(cases) {
        let (lines, seen) = call_curious(declares).await;
        let refused = AskError::NotDeclared(match missing {
            "elicitation" => Asking::Elicitation,
            "sampling" => Asking::Sampling,
            _ => Asking::Roots,
        });
        let refused = format!("error: {refused}");
        assert!(
            refused.contains(&format!("did not declare the `{missing}` capability")),
            "{refused}"
        );
        assert_eq!(
            lines.iter().filter(|line| **line == refused).count(),
            1,
            "without `{missing}`, exactly that ask is refused: {lines:?}"
        );
        assert_eq!(
            lines
                .iter()
                .filter(|line| line.starts_with("error"))
                .count(),
            1,
            "the declared asks are answered: {lines:?}"
        );
        assert!(
            !seen.iter().any(|seen| seen.get(missing).is_some()),
            "the client was never asked for `{missing}`: {seen:?}"
        );
    }
}

#[tokio::test]
async fn outside_mcp_every_ask_answers_not_available_and_nothing_waits() {
    use toolset::prelude::*;
    // The same handler, applied as a provider loop or the driver applies it.
    let ctx = ToolContext::default();
    assert!(matches!(
        ctx.elicit(form()).await,
        Err(AskError::NotAvailable {
            asking: Asking::Elicitation,
            ..
        })
    ));
    assert!(matches!(
        ctx.sample(Sampling::new("hi", 1)).await,
        Err(AskError::NotAvailable {
            asking: Asking::Sampling,
            ..
        })
    ));
    let roots = ctx.roots().await.expect_err("no client to ask");
    assert_eq!(roots.asking(), Asking::Roots);
    assert!(roots.to_string().contains("not available here"), "{roots}");

    let call = toolset::ToolCall::new("c1", "curious", "{}");
    let plan = CuriousTools::gate(vec![call], toolset::Autonomy::ReadOnly)
        .expect("a read-only call passes");
    let report = CuriousTools::apply(&mut (), &ctx, plan).await;
    let text = format!("{report:?}");
    assert_eq!(text.matches("is not available here").count(), 3, "{text}");
}

#[test]
fn the_typescript_sdk_is_asked_what_it_declared_and_never_what_it_did_not_over_stdio() {
    toolset_tests::sdk_client::typescript_passes(
        "asking_client.mjs",
        env!("CARGO_BIN_EXE_mcp_asking").as_ref(),
        10,
    );
}

#[test]
fn the_typescript_sdk_is_asked_what_it_declared_and_never_what_it_did_not_over_streamable_http() {
    toolset_tests::sdk_client::over_http(env!("CARGO_BIN_EXE_mcp_asking"), |url| {
        toolset_tests::sdk_client::typescript_passes("asking_client.mjs", url.as_ref(), 10)
    });
}

#[test]
fn the_python_sdk_is_asked_what_it_declared_and_never_what_it_did_not_over_stdio() {
    toolset_tests::sdk_client::python_passes(
        "asking_client.py",
        env!("CARGO_BIN_EXE_mcp_asking").as_ref(),
        18,
    );
}

#[test]
fn the_python_sdk_is_asked_what_it_declared_and_never_what_it_did_not_over_streamable_http() {
    toolset_tests::sdk_client::over_http(env!("CARGO_BIN_EXE_mcp_asking"), |url| {
        toolset_tests::sdk_client::python_passes("asking_client.py", url.as_ref(), 18)
    });
}
