//! OpenAI Responses' async tools (`#[tool(late_result)]`, rendered `"async": true`) through
//! the driver, on a recorded exchange (`fixtures/exchanges/openai_responses_async.json`,
//! the model's responses replayed by `ScriptedModel`): a call the model does not wait for
//! that is withheld for a human is left unanswered (no placeholder), and its one
//! `function_call_output`, under the original `call_id`, comes with the first request after
//! the approval, in whatever process the conversation goes on, never twice. Every request
//! body is judged by the openai SDK's request types (`tests/validators/validate_exchange.py`).
//! Other formats keep the placeholder and the follow-up.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use toolset::consumer::Format;
use toolset::driver::{NextRequest, Resolved, Style};
use toolset::prelude::*;
use toolset::run::PendingCall;
use toolset::store::Store;
use toolset::testing::{Model, ScriptedModel};
use toolset::{Autonomy, Driver, SqliteStore, ToolContext, tool, toolset};
use toolset_tests::validators::judged_by_python;

/// The invoices sent.
#[derive(Default)]
pub struct Billing {
    sent: Vec<u32>,
}

/// Look an invoice up.
#[tool(tier = "read_only")]
pub async fn lookup_invoice(
    /// The invoice's number.
    number: u32,
) -> String {
    format!("invoice {number}: 1,200 EUR, due 2026-12-31")
}

/// Send an invoice to a customer. It may take a while; go on meanwhile.
#[tool(tier = "external_reversible", late_result)]
pub async fn send_invoice(
    billing: &mut Billing,
    /// The invoice's number.
    number: u32,
    /// Where to send it.
    to: String,
) -> String {
    billing.sent.push(number);
    format!("sent invoice {number} to {to}")
}

toolset! {
    /// Billing: a lookup that runs at once, a send the model does not wait for.
    pub BillingTools<Billing> = [lookup_invoice, send_invoice];
}

fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("async-tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

/// The model's recorded responses, in order.
fn recorded() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/exchanges/openai_responses_async.json");
    let text = std::fs::read_to_string(&path).expect("the recording is checked in");
    let recording: Value = serde_json::from_str(&text).expect("the recording is JSON");
    recording["responses"]
        .as_array()
        .expect("a list of responses")
        .clone()
}

fn driver(path: &Path, style: Style) -> Driver<BillingTools, SqliteStore> {
    Driver::new(
        BillingTools::policy(Autonomy::Reversible),
        SqliteStore::open(path).expect("a db"),
    )
    .format(Format::OpenAiResponses)
    .style(style)
}

/// The conversation as the host keeps it: the `input` items so far, and every request body
/// sent.
struct Exchange {
    input: Vec<Value>,
    requests: Vec<Value>,
}

impl Exchange {
    fn new() -> Self {
        Exchange {
            input: vec![
                json!({"role": "user", "content": "Send invoice 1042 to ACME, and tell me what it is for."}),
            ],
            requests: Vec::new(),
        }
    }

    /// Appends messages the driver handed out (a results array, or one item) to the input.
    fn append(&mut self, messages: Vec<Value>) {
        for message in messages {
            match message {
                Value::Array(items) => self.input.extend(items),
                item => self.input.push(item),
            }
        }
    }

    /// The body of the next request: the driver's late messages appended, its tools.
    fn request(&mut self, next: NextRequest) -> Value {
        assert!(
            !next.waiting,
            "nothing waits: the model does not wait for the send"
        );
        self.append(next.messages);
        let tools: Value = serde_json::from_str(&next.tools).expect("the tools are JSON");
        let body = json!({"model": "gpt-5.4", "input": self.input, "tools": tools});
        self.requests.push(body.clone());
        body
    }

    /// The model's response to the last request, its output items kept in the input.
    fn respond(&mut self, model: &mut ScriptedModel) -> Value {
        let tools = self.requests.last().map(|body| body["tools"].to_string());
        let response = model
            .respond(&self.input, &tools.unwrap_or_default())
            .expect("a recorded response");
        let output = response["output"].as_array().expect("an output").clone();
        self.input.extend(output);
        response
    }
}

/// The `function_call_output` items of `body`'s input answering `call_id`.
fn outputs<'a>(body: &'a Value, call_id: &str) -> Vec<&'a Value> {
    body["input"]
        .as_array()
        .expect("an input")
        .iter()
        .filter(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .collect()
}

/// Whether anything of `body`'s input mentions `call_id` but its call and its one output
/// (a follow-up about it, a placeholder).
fn mentioned_elsewhere(body: &Value, call_id: &str) -> bool {
    body["input"]
        .as_array()
        .expect("an input")
        .iter()
        .filter(|item| item["type"] != "function_call" && item["type"] != "function_call_output")
        .any(|item| item.to_string().contains(call_id))
}

/// The tool named `name` in `body`'s tools.
fn tool<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == name)
        .expect("the tool is offered")
}

/// What `python3 tests/validators/validate_exchange.py` says of the request bodies.
fn judged_by_the_sdk(requests: &[Value], file: &str) {
    let said = judged_by_python(
        "tests/validators/validate_exchange.py",
        &Value::Array(requests.to_vec()),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join(file),
    );
    assert!(
        said.contains(&format!("{} requests, 0 problems", requests.len())),
        "{said}"
    );
}

/// A pending call as a run saved before async tools has it (no `unanswered` key) reads as
/// answered, and an answered one is saved without the key: such a run's bytes, and so its
/// seal, are what they were.
fn a_run_saved_before_async_tools_reads_as_answered(pending: &PendingCall) {
    let mut saved = serde_json::to_value(pending).expect("serializes");
    let fields = saved.as_object_mut().expect("an object");
    assert_eq!(fields.remove("unanswered"), Some(json!(true)));
    let old: PendingCall = serde_json::from_value(saved.clone()).expect("reads");
    assert!(!old.unanswered);
    assert_eq!(serde_json::to_value(&old).expect("serializes"), saved);
}

/// The recorded exchange in `style`: request 1 offers the send `async: true`; the model
/// calls the lookup and the send; the send is withheld for a human. Request 2 (before the
/// approval) carries no output for it, no placeholder. Another process approves; the
/// conversation resumes in a third, whose request 3 carries the send's one
/// `function_call_output` under its original call id; request 4 does not add it again, and
/// a fourth process resuming the conversation delivers nothing.
async fn the_async_result_arrives_once(style: Style, name: &str) {
    let path = tempdir(name).join("billing.db");
    let ctx = ToolContext::default();
    let mut billing = Billing::default();
    let mut model = ScriptedModel::new(recorded());
    let send_id = format!("call_send1042{}", model.suffix());
    let lookup_id = format!("call_lookup1042{}", model.suffix());
    let mut exchange = Exchange::new();

    // Request 1: the send is declared async, the lookup is not.
    let here = driver(&path, style);
    let mut conversation = here.start().expect("started");
    let id = conversation.id().clone();
    let first = exchange.request(conversation.next_request().expect("prepared"));
    assert_eq!(tool(&first, "send_invoice")["async"], true, "{first:#}");
    assert!(tool(&first, "lookup_invoice").get("async").is_none());
    let response = exchange.respond(&mut model);
    assert_eq!(response["output"][1]["async"], true);
    let turn = conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("answered");
    assert_eq!(turn.proposals.len(), 1);
    assert_eq!(turn.proposals[0].call().id, send_id);
    assert!(billing.sent.is_empty(), "the send waits for a human");
    // The lookup ran and is answered now; the send is not answered at all.
    assert_eq!(turn.messages.len(), 1, "{:?}", turn.messages);
    let answered: Vec<&Value> = turn.messages[0].as_array().expect("items").iter().collect();
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["call_id"], lookup_id.as_str());
    assert!(conversation.run().pending()[0].unanswered);
    a_run_saved_before_async_tools_reads_as_answered(&conversation.run().pending()[0]);
    exchange.append(turn.messages);

    // Request 2, before the approval: no output for the send, no placeholder.
    let second = exchange.request(conversation.next_request().expect("prepared"));
    assert!(outputs(&second, &send_id).is_empty(), "{second:#}");
    assert!(!mentioned_elsewhere(&second, &send_id), "{second:#}");
    assert!(
        !second.to_string().contains("Awaiting approval"),
        "{second:#}"
    );
    assert_eq!(outputs(&second, &lookup_id).len(), 1);
    let response = exchange.respond(&mut model);
    let turn = conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("a text answer");
    assert!(!turn.called);
    drop(conversation);

    // Another process approves.
    let elsewhere = driver(&path, style);
    let proposal = elsewhere
        .approvals()
        .waiting()
        .expect("listed")
        .into_iter()
        .next()
        .expect("the send waits");
    let reviewed = elsewhere
        .pending(proposal.id())
        .expect("pending")
        .reviewed();
    let Resolved::Ran(_) = elsewhere
        .approve(&reviewed, &mut billing, &ctx)
        .await
        .expect("approved")
    else {
        panic!("send_invoice has a handler")
    };
    assert_eq!(billing.sent, [1042]);

    // Request 3, in a third process: the send's one output, under its original call id.
    let third = driver(&path, style);
    let mut conversation = third.resume(&id).expect("resumed");
    let next = conversation.next_request().expect("prepared");
    assert_eq!(next.messages.len(), 1, "{:?}", next.messages);
    let late = exchange.request(next);
    let sent = outputs(&late, &send_id);
    assert_eq!(sent.len(), 1, "{late:#}");
    assert_eq!(
        sent[0]["output"],
        "sent invoice 1042 to billing@acme.example"
    );
    assert!(
        !mentioned_elsewhere(&late, &send_id),
        "no follow-up about it: {late:#}"
    );
    let key = proposal.id().as_str();
    let entry = third.store().entry(key).expect("read").expect("journaled");
    assert!(
        entry.delivered_at_ms.is_some(),
        "marked delivered once sent"
    );
    let response = exchange.respond(&mut model);
    conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("a text answer");

    // Request 4: nothing new; the one output stays the only one.
    let next = conversation.next_request().expect("prepared");
    assert!(next.messages.is_empty(), "given twice: {:?}", next.messages);
    let fourth = exchange.request(next);
    assert_eq!(outputs(&fourth, &send_id).len(), 1);
    let response = exchange.respond(&mut model);
    conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("a text answer");
    drop(conversation);

    // A resume from the store, in a fourth process, delivers nothing again.
    let fourth_process = driver(&path, style);
    assert!(fourth_process.run(&id).expect("read").late().is_empty());
    let mut conversation = fourth_process.resume(&id).expect("resumed");
    let next = conversation.next_request().expect("prepared");
    assert!(next.messages.is_empty(), "given twice: {:?}", next.messages);
    assert_eq!(billing.sent, [1042], "ran once");

    judged_by_the_sdk(&exchange.requests, &format!("async-exchange-{name}.json"));
}

#[tokio::test]
async fn an_async_result_arrives_once_in_a_later_request_without_a_placeholder() {
    the_async_result_arrives_once(Style::Continue, "continue").await;
}

/// In the pause style, a batch whose only withheld call is an async tool's is not held:
/// the model does not wait for it, so neither does the conversation.
#[tokio::test]
async fn an_async_call_alone_holds_no_batch_in_the_pause_style() {
    the_async_result_arrives_once(Style::Pause, "pause").await;
}

/// OpenAI Chat has no async tools: the same withheld call is answered "awaiting approval"
/// in its turn, and its result comes as a follow-up, as for any tool.
#[tokio::test]
async fn other_formats_answer_an_async_tools_withheld_call_as_before() {
    let path = tempdir("chat").join("billing.db");
    let ctx = ToolContext::default();
    let mut billing = Billing::default();
    let driver = driver(&path, Style::Continue).format(Format::OpenAiChat);
    let mut conversation = driver.start().expect("started");
    let next = conversation.next_request().expect("prepared");
    assert!(!next.tools.contains("\"async\""), "{}", next.tools);
    let response = json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "send_invoice",
                     "arguments": "{\"number\":7,\"to\":\"a@example.com\"}"}}]});
    let turn = conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("answered");
    assert_eq!(turn.messages[0][0]["tool_call_id"], "c1");
    assert!(
        turn.messages[0][0]["content"]
            .to_string()
            .contains("Awaiting approval"),
        "{:?}",
        turn.messages
    );
    let reviewed = turn.proposals[0].reviewed();
    driver
        .approve(&reviewed, &mut billing, &ctx)
        .await
        .expect("approved");
    let next = conversation.next_request().expect("prepared");
    assert_eq!(next.messages.len(), 1);
    assert_eq!(
        next.messages[0]["role"], "user",
        "a follow-up: {:?}",
        next.messages
    );
}

/// An async tool's call that runs in its turn (the autonomy covers its tier) is answered in
/// that turn, as any call: only a result that is not there yet is left for later.
#[tokio::test]
async fn an_async_call_that_runs_in_its_turn_is_answered_in_it() {
    let ctx = ToolContext::default();
    let mut billing = Billing::default();
    let driver = Driver::new(
        BillingTools::policy(Autonomy::ExternalReversible),
        toolset::MemoryStore::new(),
    )
    .format(Format::OpenAiResponses);
    let mut conversation = driver.start().expect("started");
    let mut model = ScriptedModel::new(recorded());
    let mut exchange = Exchange::new();
    exchange.request(conversation.next_request().expect("prepared"));
    let response = exchange.respond(&mut model);
    let turn = conversation
        .respond(&response, &mut billing, &ctx)
        .await
        .expect("answered");
    assert!(turn.proposals.is_empty());
    assert_eq!(billing.sent, [1042]);
    let send_id = format!("call_send1042{}", model.suffix());
    let items = turn.messages[0].as_array().expect("items");
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[1]["call_id"], send_id.as_str());
    assert_eq!(
        items[1]["output"],
        "sent invoice 1042 to billing@acme.example"
    );
    assert!(conversation.run().pending().is_empty());
}
