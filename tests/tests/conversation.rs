//! The two conversation styles for a call awaiting approval, with each format's messages:
//! pause (nothing sent for the pending call; its real result later under its own call id)
//! and continue ("awaiting approval" now; the outcome later as a follow-up the model reads).

use serde_json::Value;
use toolset::approval::Approved;
use toolset::consumer::{anthropic, gemini, openai_chat, openai_responses};
use toolset::output::ToolReply;
use toolset::prelude::*;
use toolset::report::Report;
use toolset::{Approvals, Autonomy, MemoryStore, ToolCall, ToolContext, tool, toolset};

/// The notes, and what the tools did to them.
#[derive(Default)]
pub struct Notes {
    deleted: Vec<u32>,
}

/// Read a note.
#[tool(tier = "read_only")]
pub async fn read_note(id: u32) -> String {
    format!("note {id} says hello")
}

/// Delete a note for good.
#[tool(tier = "irreversible")]
pub async fn delete_note(notes: &mut Notes, id: u32) -> String {
    notes.deleted.push(id);
    format!("deleted note {id}")
}

toolset! {
    /// The notes' tools.
    pub NoteTools<Notes> = [read_note, delete_note];
}

/// A batch of a read and a delete at `Reversible`: the read runs, the delete waits. The
/// batch's report, and the late result of approving and running the delete.
async fn batch_and_late(notes: &mut Notes) -> (Report, Vec<ToolReply>) {
    let calls = [
        ToolCall::new("call_r", "read_note", r#"{"id":1}"#),
        ToolCall::new("call_d", "delete_note", r#"{"id":4}"#),
    ];
    let plan = NoteTools::gate(calls, Autonomy::Reversible).expect("a valid program");
    let proposal = plan.proposals()[0].clone();
    let ctx = ToolContext::default();
    let report = NoteTools::apply(notes, &ctx, plan).await;
    assert!(notes.deleted.is_empty(), "the delete waits for a human");
    let approvals = Approvals::new(MemoryStore::new());
    approvals.submit(&proposal).expect("stored");
    let policy = NoteTools::policy(Autonomy::Reversible);
    let Approved::Run(approved) = approvals
        .approve(
            &proposal.reviewed(),
            &toolset::request::Request::new(&policy),
        )
        .expect("approved")
    else {
        panic!("delete_note has a handler");
    };
    let late = approved.apply(notes, &ctx).await.results();
    (report, late)
}

#[tokio::test]
async fn pause_sends_nothing_for_the_pending_call_then_its_real_result_under_the_same_call_id() {
    let mut notes = Notes::default();
    let (report, late) = batch_and_late(&mut notes).await;
    let settled = report.settled_results();
    assert_eq!(
        settled
            .iter()
            .map(|r| r.call_id.as_str())
            .collect::<Vec<_>>(),
        ["call_r"],
        "nothing is sent for the pending call"
    );
    let all = report.results_with_late(&late);
    assert_eq!(
        all.iter().map(|r| r.call_id.as_str()).collect::<Vec<_>>(),
        ["call_r", "call_d"]
    );
    // Through each format's own results writer, the delete is answered by what it did.
    let chat = openai_chat::results(&all);
    assert_eq!(chat[1]["tool_call_id"], "call_d");
    assert_eq!(chat[1]["content"], "deleted note 4");
    let responses = openai_responses::results(&all);
    assert_eq!(responses[1]["call_id"], "call_d");
    assert_eq!(responses[1]["output"], "deleted note 4");
    let claude = anthropic::results(&all);
    assert_eq!(claude["content"][1]["tool_use_id"], "call_d");
    assert!(claude.to_string().contains("deleted note 4"), "{claude}");
    let gem = gemini::results(&all);
    assert_eq!(gem["parts"][1]["functionResponse"]["id"], "call_d");
    assert!(gem.to_string().contains("deleted note 4"), "{gem}");
    assert!(
        !serde_json::to_string(&all)
            .unwrap_or_default()
            .contains("Awaiting")
    );
    assert_eq!(notes.deleted, [4]);
}

/// The text a follow-up message carries, whatever its format's shape.
fn texts(message: &Value) -> String {
    match message {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(texts).collect(),
        Value::Object(map) => map.values().map(texts).collect(),
        _ => String::new(),
    }
}

#[tokio::test]
async fn continue_answers_awaiting_approval_now_and_delivers_the_outcome_as_a_follow_up() {
    let mut notes = Notes::default();
    let (report, late) = batch_and_late(&mut notes).await;
    let now = openai_chat::results(&report.results());
    assert_eq!(now[1]["tool_call_id"], "call_d");
    assert!(
        now[1]["content"]
            .as_str()
            .is_some_and(|text| text.starts_with("Awaiting approval")),
        "{now}"
    );
    for (format, message, role) in [
        ("openai_chat", openai_chat::follow_up(&late), "user"),
        (
            "openai_responses",
            openai_responses::follow_up(&late),
            "user",
        ),
        ("anthropic", anthropic::follow_up(&late), "user"),
        ("gemini", gemini::follow_up(&late), "user"),
    ] {
        assert_eq!(message["role"], role, "{format}: {message}");
        let text = texts(&message);
        assert!(
            text.contains("call_d")
                && text.contains("delete_note")
                && text.contains("deleted note 4"),
            "{format}: {message}"
        );
    }
    // A decline is delivered the same way, with the human's reason.
    let approvals = Approvals::new(MemoryStore::new());
    let plan = NoteTools::gate(
        [ToolCall::new("call_x", "delete_note", r#"{"id":5}"#)],
        Autonomy::Reversible,
    )
    .expect("valid");
    approvals.submit(&plan.proposals()[0]).expect("stored");
    let declined = approvals
        .decline(&plan.proposals()[0].reviewed(), "keep it")
        .expect("declined once");
    let text = texts(&openai_chat::follow_up(&[declined]));
    assert!(
        text.contains("call_x") && text.contains("keep it"),
        "{text}"
    );
}
