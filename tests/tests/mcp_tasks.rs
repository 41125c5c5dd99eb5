//! Long calls as tasks (the MCP Tasks extension, SEP-2663), driven by rmcp's own client over
//! an in-memory pipe: a tool the server runs as a task answers a client that declared the
//! extension with a task; `tasks/get` shows it working, waiting for a human, then completed
//! with the very result the call would have had; `tasks/cancel` cancels the handler through
//! its `ToolContext`; ended tasks are released after their time to live and beyond the
//! caps; and nothing changes for other clients, other tools, or refused calls.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientConfig,
    CreateTaskResult, ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode,
    GetTaskParams, GetTaskResult, JsonObject, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use toolset::mcp::{McpServer, TaskLimits};
use toolset::prelude::*;
use toolset::{Autonomy, ToolContext, tool, toolset};
use toolset_tests::mcp_result::{complete, text};

/// What the tools share with the test: a gate the slow tool waits at, and the flag it sets
/// when it sees its call cancelled.
#[derive(Default)]
pub struct Lab {
    release: Arc<Notify>,
    saw_cancel: Arc<AtomicBool>,
}

/// Wait until released, or stop when cancelled.
#[tool(tier = "read_only")]
pub async fn slow(lab: &Lab, ctx: &ToolContext) -> String {
    tokio::select! {
        () = ctx.cancellation().cancelled() => {
            lab.saw_cancel.store(true, Ordering::SeqCst);
            "stopped".to_owned()
        }
        () = lab.release.notified() => "released".to_owned(),
    }
}

/// Echo the text.
#[tool(tier = "read_only")]
pub async fn echo(text: String) -> String {
    text
}

/// Answer at once.
#[tool(tier = "read_only")]
pub async fn quick() -> String {
    "quick".to_owned()
}

/// Write something (withheld at the read-only autonomy).
#[tool(tier = "reversible")]
pub async fn write(note: String) -> String {
    format!("wrote {note}")
}

toolset! { pub LabTools<Lab> = [slow, echo, quick, write]; }

/// A test client: declares the Tasks extension or not, and answers elicitations with an
/// approval once released (when it can be asked at all).
#[derive(Clone)]
struct Client {
    tasks: bool,
    approve_when: Option<Arc<Notify>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = json!({});
        if self.tasks {
            capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
        }
        if self.approve_when.is_some() {
            capabilities["elicitation"] = json!({});
        }
        toolset_tests::mcp_result::client_config("2025-06-18", capabilities, "tasks-test")
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let Some(release) = &self.approve_when {
            release.notified().await;
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

type Connected = RunningService<RoleClient, Client>;

async fn connect(server: McpServer<LabTools>, client: Client) -> Connected {
    let (client_io, server_io) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    client.serve(client_io).await.expect("the client connects")
}

fn with_tasks() -> Client {
    Client {
        tasks: true,
        approve_when: None,
    }
}

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let args: JsonObject = serde_json::from_value(args).expect("an object");
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

async fn call(client: &Connected, name: &str, args: Value) -> CallToolResponse {
    tokio::time::timeout(
        Duration::from_secs(20),
        client.call_tool_once(params(name, args)),
    )
    .await
    .expect("the call answers in time")
    .expect("the call succeeds at the protocol level")
}

fn task_of(response: CallToolResponse) -> CreateTaskResult {
    match response {
        CallToolResponse::Task(task) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn get(client: &Connected, id: &str) -> Result<GetTaskResult, ServiceError> {
    client
        .peer()
        .get_task(GetTaskParams::new(id.to_owned()))
        .await
}

/// Polls `tasks/get` until the task's status is `status`.
async fn until(client: &Connected, id: &str, status: TaskStatus) -> GetTaskResult {
    for _ in 0..1000 {
        let got = get(client, id).await.expect("tasks/get answers");
        if got.task.status() == status {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("task {id} never reached {status:?}");
}

fn result_of(got: GetTaskResult) -> CallToolResult {
    match got.task.payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(Value::Object(result)).expect("a CallToolResult")
        }
        other => panic!("expected a completed task, got {other:?}"),
    }
}

fn unknown_task_error(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
            assert!(
                error.message.contains("Unknown task")
                    && error.message.contains("releasing the oldest first"),
                "{}",
                error.message
            );
            error
        }
        other => panic!("expected an MCP error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_task_is_working_then_completed_with_the_calls_result() {
    let lab = Lab::default();
    let release = Arc::clone(&lab.release);
    let server = McpServer::<LabTools>::new(lab).run_as_task(LabToolsName::Slow);
    let client = connect(server, with_tasks()).await;
    let info = client.peer_info().expect("the server's info");
    assert!(
        info.capabilities.supports_tasks(),
        "the extension is declared"
    );

    let task = task_of(call(&client, "slow", json!({})).await);
    let id = task.task.task_id.clone();
    assert_eq!(task.task.status, TaskStatus::Working);
    assert_eq!(task.task.ttl_ms, Some(300_000));
    assert_eq!(id.len(), 32, "{id}");
    assert_eq!(
        get(&client, &id).await.expect("tasks/get").task.status(),
        TaskStatus::Working
    );

    release.notify_one();
    let done = result_of(until(&client, &id, TaskStatus::Completed).await);
    assert_eq!(text(&done), "released");
    assert_ne!(done.is_error, Some(true));
    // Kept: asked again, the same.
    let again = result_of(until(&client, &id, TaskStatus::Completed).await);
    assert_eq!(again, done);
    // `tasks/update` has nothing to deliver; cancelling an ended task changes nothing.
    client
        .peer()
        .update_task(UpdateTaskParams::new(id.clone(), Default::default()))
        .await
        .expect("tasks/update is acknowledged");
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel is acknowledged");
    assert_eq!(
        get(&client, &id).await.expect("tasks/get").task.status(),
        TaskStatus::Completed
    );
}

#[tokio::test]
async fn cancelling_a_task_cancels_its_handler_through_its_context() {
    let lab = Lab::default();
    let saw_cancel = Arc::clone(&lab.saw_cancel);
    let server = McpServer::<LabTools>::new(lab).run_as_task(LabToolsName::Slow);
    let client = connect(server, with_tasks()).await;

    let id = task_of(call(&client, "slow", json!({})).await).task.task_id;
    until(&client, &id, TaskStatus::Working).await;
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel is acknowledged");
    until(&client, &id, TaskStatus::Cancelled).await;
    assert!(
        saw_cancel.load(Ordering::SeqCst),
        "the handler saw its context cancelled"
    );
    let error = client
        .peer()
        .cancel_task(CancelTaskParams::new("0".repeat(32)))
        .await
        .expect_err("an unknown task cannot be cancelled");
    unknown_task_error(error);
}

#[tokio::test]
async fn a_withheld_call_waits_for_the_human_as_input_required() {
    let approve = Arc::new(Notify::new());
    let server = McpServer::<LabTools>::new(Lab::default())
        .with_autonomy(Autonomy::ReadOnly)
        .run_as_task(LabToolsName::Write);
    let client = connect(
        server,
        Client {
            tasks: true,
            approve_when: Some(Arc::clone(&approve)),
        },
    )
    .await;

    let id = task_of(call(&client, "write", json!({"note": "milk"})).await)
        .task
        .task_id;
    let waiting = until(&client, &id, TaskStatus::InputRequired).await;
    assert!(
        waiting
            .task
            .task
            .status_message
            .as_deref()
            .is_some_and(|message| message.contains("approve")),
        "{waiting:?}"
    );
    approve.notify_one();
    let done = result_of(until(&client, &id, TaskStatus::Completed).await);
    assert_eq!(text(&done), "wrote milk");
}

#[tokio::test]
async fn a_withheld_call_nobody_can_approve_completes_withheld() {
    let server = McpServer::<LabTools>::new(Lab::default()).run_as_task(LabToolsName::Write);
    let plain = McpServer::<LabTools>::new(Lab::default());
    let client = connect(server, with_tasks()).await;
    let id = task_of(call(&client, "write", json!({"note": "milk"})).await)
        .task
        .task_id;
    let mut in_task = result_of(until(&client, &id, TaskStatus::Completed).await);
    let without = complete(
        call(
            &connect(plain, with_tasks()).await,
            "write",
            json!({"note": "milk"}),
        )
        .await,
    );
    // A result kept in a task says `resultType: "complete"` (SEP-2322), which the
    // 2025-06-18 wire leaves out; the rest is the same.
    in_task.result_type = None;
    assert_eq!(in_task, without, "the same withheld answer");
    assert_eq!(in_task.is_error, Some(true));
}

#[tokio::test]
async fn results_are_released_after_their_time_to_live() {
    let server = McpServer::<LabTools>::new(Lab::default())
        .run_as_task(LabToolsName::Echo)
        .with_task_limits(TaskLimits::new().with_ttl(Duration::from_millis(50)));
    let client = connect(server, with_tasks()).await;
    let task = task_of(call(&client, "echo", json!({"text": "hi"})).await);
    assert_eq!(task.task.ttl_ms, Some(50));
    let id = task.task.task_id;
    let done = result_of(until(&client, &id, TaskStatus::Completed).await);
    assert_eq!(text(&done), "hi");
    tokio::time::sleep(Duration::from_millis(120)).await;
    let error = get(&client, &id).await.expect_err("released after its TTL");
    let error = unknown_task_error(error);
    assert!(error.message.contains(&id), "{}", error.message);
}

#[tokio::test]
async fn the_oldest_results_are_released_beyond_the_caps() {
    // At most two tasks kept.
    let server = McpServer::<LabTools>::new(Lab::default())
        .run_as_task(LabToolsName::Echo)
        .with_task_limits(TaskLimits::new().with_max_tasks(2));
    let client = connect(server, with_tasks()).await;
    let mut ids = Vec::new();
    for text in ["one", "two", "three"] {
        let id = task_of(call(&client, "echo", json!({"text": text})).await)
            .task
            .task_id;
        until(&client, &id, TaskStatus::Completed).await;
        ids.push(id);
    }
    unknown_task_error(
        get(&client, &ids[0])
            .await
            .expect_err("the oldest released"),
    );
    for id in &ids[1..] {
        let kept = result_of(get(&client, id).await.expect("kept"));
        assert!(!text(&kept).is_empty());
    }

    // At most one result's bytes kept: the next one releases it; one too large alone is
    // not kept, and its task fails saying so.
    let big = "x".repeat(1000);
    let server = McpServer::<LabTools>::new(Lab::default())
        .run_as_task(LabToolsName::Echo)
        .with_task_limits(TaskLimits::new().with_max_bytes(1500));
    let client = connect(server, with_tasks()).await;
    let first = task_of(call(&client, "echo", json!({"text": big})).await)
        .task
        .task_id;
    until(&client, &first, TaskStatus::Completed).await;
    let second = task_of(call(&client, "echo", json!({"text": big})).await)
        .task
        .task_id;
    until(&client, &second, TaskStatus::Completed).await;
    unknown_task_error(get(&client, &first).await.expect_err("released for room"));
    let huge = task_of(call(&client, "echo", json!({"text": "y".repeat(2000)})).await)
        .task
        .task_id;
    let failed = until(&client, &huge, TaskStatus::Failed).await;
    match failed.task.payload {
        TaskPayload::Failed { error } => {
            let message = error["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("larger than this server keeps"),
                "{message}"
            );
        }
        other => panic!("expected a failed task, got {other:?}"),
    }
    // A failed result keeps no bytes: the one before it is still kept.
    result_of(get(&client, &second).await.expect("still kept"));
}

#[tokio::test]
async fn a_full_table_of_running_tasks_answers_the_ordinary_way() {
    let lab = Lab::default();
    let release = Arc::clone(&lab.release);
    let server = McpServer::<LabTools>::new(lab)
        .run_as_task(LabToolsName::Slow)
        .run_as_task(LabToolsName::Echo)
        .with_task_limits(TaskLimits::new().with_max_tasks(1));
    let client = connect(server, with_tasks()).await;
    let running = task_of(call(&client, "slow", json!({})).await).task.task_id;
    let result = complete(call(&client, "echo", json!({"text": "now"})).await);
    assert_eq!(text(&result), "now");
    release.notify_one();
    until(&client, &running, TaskStatus::Completed).await;
}

#[tokio::test]
async fn a_client_without_the_extension_gets_the_ordinary_result() {
    let server = McpServer::<LabTools>::new(Lab::default()).run_as_task(LabToolsName::Echo);
    let client = connect(
        server,
        Client {
            tasks: false,
            approve_when: None,
        },
    )
    .await;
    let result = complete(call(&client, "echo", json!({"text": "plain"})).await);
    assert_eq!(text(&result), "plain");
    // And `tasks/*` are refused as the extension asks: the client did not declare it.
    match get(&client, "whatever").await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        }
        other => panic!("expected a missing-capability error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_without_tasks_is_unchanged() {
    let client = connect(McpServer::<LabTools>::new(Lab::default()), with_tasks()).await;
    let info = client.peer_info().expect("the server's info");
    assert!(!info.capabilities.supports_tasks(), "no extension declared");
    assert!(info.capabilities.extensions.is_none());
    let result = complete(call(&client, "echo", json!({"text": "plain"})).await);
    assert_eq!(text(&result), "plain");
    match get(&client, "whatever").await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        }
        other => panic!("expected method not found, got {other:?}"),
    }
}

#[tokio::test]
async fn a_tool_not_run_as_a_task_is_unchanged() {
    let server = McpServer::<LabTools>::new(Lab::default()).run_as_task(LabToolsName::Echo);
    let client = connect(server, with_tasks()).await;
    let result = complete(call(&client, "quick", json!({})).await);
    assert_eq!(text(&result), "quick");
}

#[tokio::test]
async fn a_refused_call_is_answered_at_once_as_without_tasks() {
    let policy = || LabTools::policy(Autonomy::ReadOnly).deny(LabToolsName::Echo);
    let tasks = McpServer::<LabTools>::new(Lab::default())
        .with_policy(policy())
        .run_as_task(LabToolsName::Echo)
        .run_as_task(LabToolsName::Slow);
    let plain = McpServer::<LabTools>::new(Lab::default()).with_policy(policy());
    let with = connect(tasks, with_tasks()).await;
    let without = connect(plain, with_tasks()).await;
    for (name, args) in [
        // Denied: unknown, as a name no tool has.
        ("echo", json!({"text": "no"})),
        // Arguments the schema refuses.
        ("slow", json!({"extra": 1})),
        // No such tool.
        ("nothing", json!({})),
    ] {
        let refused = complete(call(&with, name, args.clone()).await);
        let same = complete(call(&without, name, args).await);
        assert_eq!(refused, same, "{name}");
        assert_eq!(refused.is_error, Some(true), "{name}");
    }
}

/// Over streamable HTTP: each `tasks/get` and `tasks/cancel` is a request of its own, and
/// the task table is the server's, so they find the task the `tools/call` started.
#[cfg(feature = "mcp-client")]
#[tokio::test(flavor = "multi_thread")]
async fn tasks_over_streamable_http() {
    use rmcp::transport::StreamableHttpClientTransport;
    use toolset::mcp::HttpConfig;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    let lab = Lab::default();
    let saw_cancel = Arc::clone(&lab.saw_cancel);
    let server = McpServer::<LabTools>::new(lab)
        .run_as_task(LabToolsName::Slow)
        .run_as_task(LabToolsName::Echo);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(server.serve_http(
        listener,
        HttpConfig::new().with_shutdown(async {
            let _ = stopped.await;
        }),
    ));
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = with_tasks()
        .serve(transport)
        .await
        .expect("connects over HTTP");

    let id = task_of(call(&client, "echo", json!({"text": "over http"})).await)
        .task
        .task_id;
    let done = result_of(until(&client, &id, TaskStatus::Completed).await);
    assert_eq!(text(&done), "over http");

    let id = task_of(call(&client, "slow", json!({})).await).task.task_id;
    until(&client, &id, TaskStatus::Working).await;
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel is acknowledged");
    until(&client, &id, TaskStatus::Cancelled).await;
    assert!(saw_cancel.load(Ordering::SeqCst));

    let _ = client.cancel().await;
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), served).await;
}

/// A `tasks/*` request whose params do not have the method's shape is `-32602` naming the
/// shape, on a server that declares the extension; on one that does not, the methods stay
/// unknown.
#[tokio::test]
async fn malformed_task_requests_are_invalid_params() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    async fn answers(server: McpServer<LabTools>) -> Vec<Value> {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        tokio::spawn(server.serve(server_end));
        let (from_server, mut to_server) = tokio::io::split(client_end);
        let mut lines = BufReader::new(from_server).lines();
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let mut sent = format!("{initialize}\n");
        sent.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        sent.push('\n');
        for (id, method) in [(2, "tasks/get"), (3, "tasks/cancel")] {
            let request =
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"id": 7}});
            sent.push_str(&format!("{request}\n"));
        }
        to_server.write_all(sent.as_bytes()).await.expect("sent");
        let mut answers = Vec::new();
        while answers.len() < 3 {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("an answer in time")
                .expect("a line")
                .expect("not closed");
            answers.push(serde_json::from_str::<Value>(&line).expect("JSON"));
        }
        answers.sort_by_key(|answer| answer["id"].as_i64());
        answers
    }

    let with =
        answers(McpServer::<LabTools>::new(Lab::default()).run_as_task(LabToolsName::Echo)).await;
    for answer in &with[1..] {
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("taskId"), "{message}");
    }
    let without = answers(McpServer::<LabTools>::new(Lab::default())).await;
    for answer in &without[1..] {
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
}
