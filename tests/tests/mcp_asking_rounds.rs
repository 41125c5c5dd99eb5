//! A handler's asks on MCP 2026-07-28 (`ToolContext::elicit`, `sample`, `roots`), where a
//! server may not send its client requests: each ask not answered yet is a round of
//! `input_required` (SEP-2322) whose sealed `requestState` carries the answers so far, and
//! the retry runs the handler again with them. Driven by rmcp's own client over in-memory
//! pipes, one round at a time (`call_tool_once`) and by its handler (`call_tool`). The
//! conformance suite's `input-required-result-*` scenarios check the wire from outside
//! (`tests/mcp/conformance.sh`).
#![allow(
    deprecated,
    reason = "rmcp marks sampling and roots deprecated (SEP-2577); 2026-07-28 asks them by input_required"
)]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    InputRequiredResult, InputResponses, ListRootsResult, ProtocolVersion, Root as McpRoot,
    SamplingMessage,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolset::context::{Form, FormAnswer, Sampling};
use toolset::mcp::McpServer;
use toolset::store::Store;
use toolset::{Autonomy, MemoryStore, SealKey, ToolContext, ToolError, tool, toolset};
use toolset_tests::mcp_result::{client_config, complete, text};

/// What the tools count and keep, shared with the test.
#[derive(Default, Clone)]
pub struct Desk {
    /// How often a handler started.
    starts: Arc<AtomicUsize>,
    /// The notes written, after their author was asked.
    notes: Arc<Mutex<Vec<String>>>,
}

fn name_form(key: &str) -> Form {
    Form::new(
        "What is your name?",
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }),
    )
    .with_key(key)
}

fn name_of(answer: &FormAnswer) -> String {
    answer
        .accepted()
        .and_then(|content| content.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("nobody")
        .to_owned()
}

/// Greet the user by name.
#[tool(tier = "read_only")]
pub async fn greet(desk: &Desk, ctx: &ToolContext) -> Result<String, ToolError> {
    desk.starts.fetch_add(1, Ordering::SeqCst);
    let answer = ctx.elicit(name_form("user_name")).await?;
    Ok(format!("Hello, {}!", name_of(&answer)))
}

/// Ask the user, the model and the roots at once.
#[tool(tier = "read_only")]
pub async fn survey(ctx: &ToolContext) -> String {
    let (user, model, roots) = tokio::join!(
        ctx.elicit(name_form("user_name")),
        ctx.sample(Sampling::new("Say hello", 20)),
        ctx.roots(),
    );
    let user = user.map_or_else(|error| format!("error: {error}"), |a| name_of(&a));
    let model = model.map_or_else(|e| format!("error: {e}"), |s| s.text.unwrap_or_default());
    let roots = roots.map_or_else(|e| format!("error: {e}"), |r| format!("{} roots", r.len()));
    format!("{user} / {model} / {roots}")
}

/// Ask twice, one question after the other: the same key twice.
#[tool(tier = "read_only")]
pub async fn two_names(ctx: &ToolContext) -> Result<String, ToolError> {
    let first = ctx.elicit(name_form("name")).await?;
    let second = ctx.elicit(name_form("name")).await?;
    Ok(format!("{} and {}", name_of(&first), name_of(&second)))
}

/// Ask who writes the note, then write it.
#[tool(tier = "reversible")]
pub async fn write_note(desk: &Desk, ctx: &ToolContext, text: String) -> Result<String, ToolError> {
    desk.starts.fetch_add(1, Ordering::SeqCst);
    let author = ctx.elicit(name_form("author")).await?;
    let note = format!("{text} (by {})", name_of(&author));
    desk.notes.lock().expect("not poisoned").push(note.clone());
    Ok(note)
}

toolset! { pub DeskTools<Desk> = [greet, survey, two_names, write_note]; }

/// A client on 2026-07-28 declaring `declares` (a JSON object of capabilities), answering
/// every ask: the name `Ada`, the model's `hi`, one root.
#[derive(Clone)]
struct Client {
    declares: Value,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        client_config("2026-07-28", self.declares.clone(), "rounds-test")
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(elicited("Ada"))
    }

    async fn create_message(
        &self,
        _request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(sampled("hi"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ListRootsResult::new(vec![McpRoot::new("file:///home/ada")]))
    }
}

fn elicited(name: &str) -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": name}))
}

fn sampled(text: &str) -> CreateMessageResult {
    CreateMessageResult::new(
        SamplingMessage::assistant_text(text),
        "test-model".to_owned(),
    )
}

const ALL: fn() -> Value = || json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}});

const KEY: [u8; 32] = [3; 32];

struct Connected {
    client: RunningService<RoleClient, Client>,
    asked: Arc<AtomicUsize>,
}

async fn connect(server: McpServer<DeskTools>, declares: Value) -> Connected {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    let asked = Arc::new(AtomicUsize::new(0));
    let client = Client {
        declares,
        asked: Arc::clone(&asked),
    };
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects");
    Connected { client, asked }
}

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

async fn once(
    connected: &Connected,
    params: CallToolRequestParams,
) -> Result<CallToolResponse, rmcp::ServiceError> {
    tokio::time::timeout(
        Duration::from_secs(20),
        connected.client.call_tool_once(params),
    )
    .await
    .expect("the call answers in time")
}

fn asking(response: Result<CallToolResponse, rmcp::ServiceError>) -> InputRequiredResult {
    match response {
        Ok(CallToolResponse::InputRequired(asking)) => asking,
        other => panic!("expected input_required, got {other:?}"),
    }
}

/// The round's requests as `key: method`, sorted by key.
fn methods(asking: &InputRequiredResult) -> Vec<String> {
    let requests = asking.input_requests.as_ref().expect("input requests");
    requests
        .iter()
        .map(|(key, request)| {
            let method = match request {
                InputRequest::Elicitation(_) => "elicitation/create",
                InputRequest::CreateMessage(_) => "sampling/createMessage",
                InputRequest::ListRoots(_) => "roots/list",
                other => panic!("an input request toolset never makes: {other:?}"),
            };
            format!("{key}: {method}")
        })
        .collect()
}

fn responses(pairs: &[(&str, Value)]) -> InputResponses {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect()
}

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a result serializes")
}

fn retry(
    params: CallToolRequestParams,
    asking: &InputRequiredResult,
    pairs: &[(&str, Value)],
) -> CallToolRequestParams {
    params
        .with_input_responses(responses(pairs))
        .with_request_state(asking.request_state.clone().expect("a requestState"))
}

fn server() -> McpServer<DeskTools> {
    McpServer::<DeskTools>::new(Desk::default())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ask_is_a_round_and_the_retry_with_its_answer_completes_the_call() {
    let connected = connect(server(), ALL()).await;
    let first = asking(once(&connected, params("greet", json!({}))).await);
    assert_eq!(methods(&first), ["user_name: elicitation/create"]);
    let form = json_of(&first.input_requests.as_ref().expect("requests")["user_name"]);
    assert_eq!(form["params"]["message"], "What is your name?", "{form}");

    let answer = [("user_name", json_of(&elicited("Ada")))];
    let done = complete(
        once(
            &connected,
            retry(params("greet", json!({})), &first, &answer),
        )
        .await
        .expect("answered"),
    );
    assert_eq!(text(&done), "Hello, Ada!", "{done:?}");
    assert_eq!(done.is_error, Some(false));

    // rmcp's client drives the same rounds through its handler.
    let driven = tokio::time::timeout(
        Duration::from_secs(20),
        connected.client.call_tool(params("greet", json!({}))),
    )
    .await
    .expect("in time")
    .expect("answered");
    assert_eq!(text(&driven), "Hello, Ada!");
    assert_eq!(connected.asked.load(Ordering::SeqCst), 1, "asked once");
    let _ = connected.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn asks_awaited_together_are_one_round_and_asks_in_turn_are_rounds_in_turn() {
    let connected = connect(server(), ALL()).await;
    let together = asking(once(&connected, params("survey", json!({}))).await);
    assert_eq!(
        methods(&together),
        [
            "roots: roots/list",
            "sampling: sampling/createMessage",
            "user_name: elicitation/create",
        ]
    );
    let answers = [
        ("user_name", json_of(&elicited("Ada"))),
        ("sampling", json_of(&sampled("hi"))),
        (
            "roots",
            json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
        ),
    ];
    let done = once(
        &connected,
        retry(params("survey", json!({})), &together, &answers),
    );
    assert_eq!(
        text(&complete(done.await.expect("answered"))),
        "Ada / hi / 2 roots"
    );

    // One question, then another under the same key: two rounds, the second `name-2`,
    // its state carrying the first answer.
    let first = asking(once(&connected, params("two_names", json!({}))).await);
    assert_eq!(methods(&first), ["name: elicitation/create"]);
    let answer = [("name", json_of(&elicited("Ada")))];
    let second = asking(
        once(
            &connected,
            retry(params("two_names", json!({})), &first, &answer),
        )
        .await,
    );
    assert_eq!(methods(&second), ["name-2: elicitation/create"]);
    assert_ne!(second.request_state, first.request_state);
    let answer = [("name-2", json_of(&elicited("Grace")))];
    let done = once(
        &connected,
        retry(params("two_names", json!({})), &second, &answer),
    );
    assert_eq!(
        text(&complete(done.await.expect("answered"))),
        "Ada and Grace"
    );
    let _ = connected.client.cancel().await;
}

/// The JSON-RPC error code of a refused `response`.
fn refused_code(response: Result<CallToolResponse, rmcp::ServiceError>) -> i32 {
    match response {
        Err(rmcp::ServiceError::McpError(error)) => error.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_altered_state_or_another_calls_or_another_servers_is_refused_with_invalid_params() {
    let sealed =
        || server().with_proposal_store(MemoryStore::new(), SealKey::new(KEY).expect("long"));
    let connected = connect(sealed(), ALL()).await;
    let note = json!({"text": "buy milk"});
    let autonomous = connect(sealed().with_autonomy(Autonomy::Reversible), ALL()).await;
    let first = asking(once(&autonomous, params("write_note", note.clone())).await);
    let answer = [("author", json_of(&elicited("Mallory")))];

    // One character of the sealed text changed.
    let state = first.request_state.clone().expect("a state");
    let mut edited = state.clone().into_bytes();
    let middle = edited.len() / 2;
    edited[middle] = if edited[middle] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).expect("text");
    let altered = params("write_note", note.clone())
        .with_input_responses(responses(&answer))
        .with_request_state(edited);
    assert_eq!(refused_code(once(&autonomous, altered).await), -32602);

    // The state of this call, sent with other arguments.
    let other = retry(
        params("write_note", json!({"text": "pay mallory"})),
        &first,
        &answer,
    );
    assert_eq!(refused_code(once(&autonomous, other).await), -32602);

    // The state of another server (another key): refused there.
    let elsewhere = connect(server().with_autonomy(Autonomy::Reversible), ALL()).await;
    let foreign = retry(params("write_note", note.clone()), &first, &answer);
    assert_eq!(refused_code(once(&elsewhere, foreign).await), -32602);

    // Nothing was written; the untouched state still completes the call, on a replica
    // sharing the key too.
    let done = once(
        &connected,
        retry(params("write_note", note), &first, &answer),
    );
    let done = complete(done.await.expect("answered"));
    // `connected` runs only read-only tools unattended: the note is withheld there.
    assert_eq!(done.is_error, Some(true), "{done:?}");
    let done = once(
        &autonomous,
        retry(
            params("write_note", json!({"text": "buy milk"})),
            &first,
            &answer,
        ),
    );
    assert_eq!(
        text(&complete(done.await.expect("answered"))),
        "buy milk (by Mallory)"
    );
    for c in [connected, autonomous, elsewhere] {
        let _ = c.client.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_state_is_refused() {
    let server = server().with_approval_timeout(Duration::from_millis(200));
    let connected = connect(server, ALL()).await;
    let first = asking(once(&connected, params("greet", json!({}))).await);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let answer = [("user_name", json_of(&elicited("Ada")))];
    let late = retry(params("greet", json!({})), &first, &answer);
    assert_eq!(refused_code(once(&connected, late).await), -32602);
    let _ = connected.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn only_responses_to_what_the_last_round_asked_are_read() {
    let connected = connect(server(), ALL()).await;
    let first = asking(once(&connected, params("two_names", json!({}))).await);
    // An answer to `name-2` before it was asked is not taken: it is asked in its round.
    let early = [
        ("name", json_of(&elicited("Ada"))),
        ("name-2", json_of(&elicited("Eve"))),
    ];
    let second = asking(
        once(
            &connected,
            retry(params("two_names", json!({})), &first, &early),
        )
        .await,
    );
    assert_eq!(methods(&second), ["name-2: elicitation/create"]);
    // And a retry answering nothing asks again, the earlier answer kept.
    let again = asking(
        once(
            &connected,
            retry(params("two_names", json!({})), &second, &[]),
        )
        .await,
    );
    assert_eq!(methods(&again), ["name-2: elicitation/create"]);
    let answer = [("name-2", json_of(&elicited("Grace")))];
    let done = once(
        &connected,
        retry(params("two_names", json!({})), &again, &answer),
    );
    assert_eq!(
        text(&complete(done.await.expect("answered"))),
        "Ada and Grace"
    );
    let _ = connected.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn only_what_the_client_declared_is_asked_and_the_handler_reads_what_it_did_not() {
    let connected = connect(server(), json!({"sampling": {}})).await;
    let first = asking(once(&connected, params("survey", json!({}))).await);
    assert_eq!(methods(&first), ["sampling: sampling/createMessage"]);
    let answer = [("sampling", json_of(&sampled("hi")))];
    let done = once(
        &connected,
        retry(params("survey", json!({})), &first, &answer),
    );
    let said = text(&complete(done.await.expect("answered")));
    let [user, model, roots] = said.split(" / ").collect::<Vec<_>>()[..] else {
        panic!("three parts: {said}");
    };
    assert!(
        user.contains("did not declare the `elicitation` capability"),
        "{said}"
    );
    assert_eq!(model, "hi");
    assert!(
        roots.contains("did not declare the `roots` capability"),
        "{said}"
    );

    // Declaring nothing: no round at all, the handler reads every refusal at once.
    let bare = connect(server(), json!({})).await;
    let said = text(&complete(
        once(&bare, params("survey", json!({})))
            .await
            .expect("answered"),
    ));
    assert_eq!(said.matches("did not declare").count(), 3, "{said}");
    let _ = bare.client.cancel().await;
    let _ = connected.client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_journaled_call_stopped_by_its_round_leaves_nothing_in_doubt_and_runs_its_effect_once() {
    let store = Arc::new(MemoryStore::new());
    let desk = Desk::default();
    let server = McpServer::<DeskTools>::new(desk.clone())
        .with_autonomy(Autonomy::Reversible)
        .with_proposal_store(Arc::clone(&store), SealKey::new(KEY).expect("long"));
    let connected = connect(server, ALL()).await;
    let note = json!({"text": "buy milk"});
    let first = asking(once(&connected, params("write_note", note.clone())).await);
    assert_eq!(methods(&first), ["author: elicitation/create"]);
    assert_eq!(desk.starts.load(Ordering::SeqCst), 1);
    assert!(
        desk.notes.lock().expect("not poisoned").is_empty(),
        "stopped at its ask"
    );
    assert_eq!(
        store.in_doubt().expect("reads"),
        [],
        "stopped at its ask: not in doubt"
    );

    let answer = [("author", json_of(&elicited("Ada")))];
    let done = once(
        &connected,
        retry(params("write_note", note), &first, &answer),
    );
    let done = complete(done.await.expect("answered"));
    assert_eq!(text(&done), "buy milk (by Ada)");
    assert_eq!(
        desk.starts.load(Ordering::SeqCst),
        2,
        "the retry runs the handler again"
    );
    assert_eq!(
        *desk.notes.lock().expect("not poisoned"),
        ["buy milk (by Ada)"],
        "written once"
    );
    assert_eq!(store.in_doubt().expect("reads"), []);
    assert_eq!(store.undelivered().expect("reads"), []);
    let _ = connected.client.cancel().await;
}
