//! The run-time guarantees: gate verifies the whole program, withheld calls never run,
//! apply records an outcome for every call and never aborts.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolset::context::CancellationToken;
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::{Autonomy, Tier, ToolCall, ToolContext, ToolError, tool, toolset};

/// The state of the test agent: a log of writes, and counters of what runs at once.
#[derive(Default)]
pub struct Desk {
    log: Vec<String>,
    reads_active: AtomicUsize,
    reads_peak: AtomicUsize,
}

/// Read a note; takes a while so that concurrent reads overlap.
#[tool(tier = "read_only")]
pub async fn read_note(desk: &Desk, key: String) -> String {
    let now = desk.reads_active.fetch_add(1, Ordering::SeqCst) + 1;
    desk.reads_peak.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    desk.reads_active.fetch_sub(1, Ordering::SeqCst);
    format!("note {key}")
}

/// Write a note.
#[tool(tier = "reversible")]
pub async fn write_note(desk: &mut Desk, key: String) -> Result<String, ToolError> {
    if key == "fail" {
        return Err(ToolError::failed("the disk is full"));
    }
    if key == "same" {
        return Err(ToolError::skipped("the note already says that"));
    }
    if key == "panic" {
        panic!("write_note exploded");
    }
    assert_eq!(
        desk.reads_active.load(Ordering::SeqCst),
        0,
        "a write overlapped a read"
    );
    desk.log.push(format!("write {key}"));
    Ok(format!("wrote {key}"))
}

/// Share a note with a colleague.
#[tool(tier = "external_reversible")]
pub async fn share_note(desk: &mut Desk, key: String) {
    desk.log.push(format!("share {key}"));
}

/// Delete a note for good.
#[tool(tier = "irreversible")]
pub async fn delete_note(desk: &mut Desk, key: String) {
    desk.log.push(format!("delete {key}"));
}

/// Wait much longer than the tool's limit.
#[tool(tier = "reversible", timeout_ms = 20)]
pub async fn slow_write(desk: &mut Desk) {
    tokio::time::sleep(Duration::from_secs(5)).await;
    desk.log.push("slow".into());
}

/// Wait until cancelled.
#[tool(tier = "reversible")]
pub async fn wait_forever(desk: &mut Desk) {
    std::future::pending::<()>().await;
    desk.log.push("never".into());
}

/// List notes; the page size is bounded by the schema, not only by the type.
#[tool(tier = "read_only")]
pub async fn list_notes(
    _desk: &Desk,
    /// How many notes per page.
    #[schemars(range(min = 1, max = 100))]
    page_size: u32,
    /// A prefix the keys start with.
    #[schemars(length(max = 8))]
    prefix: Option<String>,
) -> String {
    format!("{page_size} notes starting with {prefix:?}")
}

/// Tell the id of this call, as the handler's context carries it.
#[tool(tier = "read_only")]
pub async fn call_id(ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn shown(notice: &Notice) -> String {
    format!("To everyone: {}", notice.text)
}

/// Post a notice to everyone; the host posts it after the user agrees.
#[tool(tier = "irreversible", propose_only, preview = shown)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Notice {
    /// What to post.
    pub text: String,
}

toolset! {
    /// The test agent's tools.
    pub DeskTools<Desk> = [read_note, write_note, share_note, delete_note, slow_write, wait_forever, list_notes, call_id, Notice];
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

fn outcome_kinds(report: &toolset::report::Report) -> Vec<&'static str> {
    report
        .entries()
        .iter()
        .map(|entry| entry.outcome.as_ref().map_or("awaiting", Outcome::kind))
        .collect()
}

#[tokio::test]
async fn a_failing_call_in_the_middle_keeps_the_results_before_and_after_it() {
    let program = vec![
        call("1", "write_note", r#"{"key":"a"}"#),
        call("2", "write_note", r#"{"key":"fail"}"#),
        call("3", "write_note", r#"{"key":"same"}"#),
        call("4", "write_note", r#"{"key":"b"}"#),
    ];
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    assert_eq!(
        outcome_kinds(&report),
        ["done", "failed", "skipped", "done"]
    );
    assert_eq!(desk.log, ["write a", "write b"]);
    let results = report.results();
    assert_eq!(results.len(), 4);
    assert!(
        results[1].output.is_error()
            && results[1]
                .output
                .text_content()
                .contains("the disk is full")
    );
    assert!(!results[2].output.is_error(), "a skip is not an error");
}

#[tokio::test]
async fn a_panicking_handler_is_contained_and_later_calls_still_run() {
    let program = vec![
        call("1", "write_note", r#"{"key":"panic"}"#),
        call("2", "write_note", r#"{"key":"after"}"#),
    ];
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    assert!(
        matches!(&report.entries()[0].outcome, Some(Outcome::Panicked { message }) if message == "write_note exploded")
    );
    assert_eq!(desk.log, ["write after"]);
    // The model learns that the tool crashed, not the panic's internals.
    assert!(
        !report.results()[0]
            .output
            .text_content()
            .contains("exploded")
    );
}

#[tokio::test]
async fn read_only_calls_overlap_in_time_while_writes_run_alone() {
    let program = vec![
        call("1", "read_note", r#"{"key":"a"}"#),
        call("2", "read_note", r#"{"key":"b"}"#),
        call("3", "read_note", r#"{"key":"c"}"#),
        call("4", "write_note", r#"{"key":"w"}"#),
        call("5", "read_note", r#"{"key":"d"}"#),
    ];
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    assert_eq!(outcome_kinds(&report), ["done"; 5]);
    assert_eq!(
        desk.reads_peak.load(Ordering::SeqCst),
        3,
        "the three consecutive reads ran together"
    );
    // write_note asserts that no read was active while it ran.
    assert_eq!(desk.log, ["write w"]);
}

#[tokio::test]
async fn a_call_past_its_timeout_is_stopped_and_recorded() {
    let program = vec![
        call("1", "slow_write", "{}"),
        call("2", "write_note", r#"{"key":"next"}"#),
    ];
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    assert!(
        matches!(report.entries()[0].outcome, Some(Outcome::TimedOut { after }) if after == Duration::from_millis(20))
    );
    assert_eq!(desk.log, ["write next"]);
}

#[tokio::test]
async fn cancelling_the_context_stops_the_running_call_and_the_rest() {
    let token = CancellationToken::new();
    let ctx = ToolContext::default().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    });
    let program = vec![
        call("1", "write_note", r#"{"key":"before"}"#),
        call("2", "wait_forever", ""),
        call("3", "write_note", r#"{"key":"after"}"#),
    ];
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ctx, plan).await;
    canceller.await.unwrap();
    assert_eq!(outcome_kinds(&report), ["done", "cancelled", "cancelled"]);
    assert_eq!(desk.log, ["write before"]);
}

#[test]
fn one_bad_call_rejects_the_whole_program_with_a_message_per_bad_call() {
    let program = vec![
        call("1", "write_note", r#"{"key":"fine"}"#),
        call("2", "raed_note", r#"{"key":"a"}"#),
        call("3", "read_note", r#"{"key": "a""#),
        call("4", "write_note", r#"{"key": 7}"#),
        call("5", "write_note", r#"{"key":"x","extra":1}"#),
        call("6", "write_note", r#"{}"#),
    ];
    let rejected = DeskTools::gate(program, Autonomy::ExternalReversible).unwrap_err();
    let kinds: Vec<ProblemKind> = rejected
        .problems()
        .iter()
        .map(|problem| problem.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::UnknownTool,
            ProblemKind::MalformedJson,
            ProblemKind::InvalidArguments,
            ProblemKind::InvalidArguments,
            ProblemKind::InvalidArguments
        ]
    );
    let messages: Vec<&str> = rejected
        .problems()
        .iter()
        .map(|problem| problem.message.as_str())
        .collect();
    assert!(
        messages[0].contains("Did you mean \"read_note\"?"),
        "{}",
        messages[0]
    );
    assert!(messages[1].contains("not valid JSON"), "{}", messages[1]);
    assert!(
        messages[2].contains("/key: expected a string, got 7"),
        "{}",
        messages[2]
    );
    assert!(
        messages[3].contains("/extra: unknown key"),
        "{}",
        messages[3]
    );
    assert!(
        messages[4].contains("/key: missing required key (expected a string)"),
        "{}",
        messages[4]
    );
    // Every call gets a result, so the model can fix the program and resend it.
    let results = rejected.results();
    assert_eq!(results.len(), 6);
    assert!(results.iter().all(|result| result.output.is_error()));
    assert!(results[0].output.text_content().contains("Not run"));
}

#[test]
fn schema_constraints_serde_cannot_check_are_enforced_by_the_gate() {
    let in_range = DeskTools::gate(
        vec![call(
            "1",
            "list_notes",
            r#"{"page_size": 100, "prefix": "ab"}"#,
        )],
        Autonomy::ReadOnly,
    );
    assert!(in_range.is_ok());
    let program = vec![
        call("1", "list_notes", r#"{"page_size": 500}"#),
        call(
            "2",
            "list_notes",
            r#"{"page_size": 0, "prefix": "much-too-long"}"#,
        ),
    ];
    let rejected = DeskTools::gate(program, Autonomy::ReadOnly).unwrap_err();
    let messages: Vec<&str> = rejected
        .problems()
        .iter()
        .map(|problem| problem.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2);
    assert!(
        messages[0].contains("/page_size") && messages[0].contains("500"),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].contains("/page_size") && messages[1].contains("/prefix"),
        "both violations are listed: {}",
        messages[1]
    );
    assert!(
        rejected
            .problems()
            .iter()
            .all(|problem| problem.kind == ProblemKind::InvalidArguments)
    );
}

#[tokio::test]
async fn calls_above_autonomy_become_proposals_and_do_not_run() {
    let program = vec![
        call("1", "write_note", r#"{"key":"a"}"#),
        call("2", "share_note", r#"{"key":"a"}"#),
        call("3", "delete_note", r#"{"key":"a"}"#),
        call("4", "Notice", r#"{"text":"hi"}"#),
        call("5", "notice", r#"{"text":"hi"}"#),
    ];
    let rejected = DeskTools::gate(program.clone(), Autonomy::Reversible).unwrap_err();
    assert_eq!(
        rejected.problems().len(),
        1,
        "the struct tool is named `notice`, not `Notice`"
    );

    let program: Vec<ToolCall> = program.into_iter().filter(|c| c.name != "Notice").collect();
    let plan = DeskTools::gate(program, Autonomy::Reversible).unwrap();
    let tiers: Vec<Tier> = plan.proposals().iter().map(|p| p.tier()).collect();
    assert_eq!(
        tiers,
        [
            Tier::ExternalReversible,
            Tier::Irreversible,
            Tier::Irreversible
        ]
    );
    assert_eq!(
        plan.proposals()[2].preview::<DeskTools>().as_deref(),
        Some("To everyone: hi")
    );
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    assert_eq!(desk.log, ["write a"]);
    assert_eq!(
        outcome_kinds(&report),
        ["done", "awaiting", "awaiting", "awaiting"]
    );
    assert!(
        report.results()[1]
            .output
            .text_content()
            .contains("Awaiting approval")
    );
}

#[test]
fn a_call_can_be_checked_alone_as_soon_as_its_arguments_are_complete() {
    let policy = DeskTools::policy(Autonomy::ReadOnly).deny(DeskToolsName::WriteNote);
    let request = toolset::request::Request::new(&policy);
    assert_eq!(
        request.check(&call("1", "read_note", r#"{"key":"a"}"#)),
        Ok(())
    );
    let kind = |call: ToolCall| {
        request.check(&call).map_err(|problems| {
            problems
                .iter()
                .map(|problem| problem.kind)
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        kind(call("2", "read_note", r#"{"key""#)),
        Err(vec![ProblemKind::MalformedJson])
    );
    assert_eq!(
        kind(call("3", "write_note", r#"{"key":"a"}"#)),
        Err(vec![ProblemKind::Denied])
    );
    assert_eq!(
        kind(call("4", "list_notes", r#"{"page_size":0}"#)),
        Err(vec![ProblemKind::InvalidArguments])
    );
    // The same problem the gate reports for that call in a program.
    let rejected =
        DeskTools::gate_with(vec![call("4", "list_notes", r#"{"page_size":0}"#)], &policy)
            .unwrap_err();
    assert_eq!(
        Err(rejected.problems().to_vec()),
        request.check(&call("4", "list_notes", r#"{"page_size":0}"#))
    );
}

#[test]
fn a_deferred_tool_is_neither_listed_nor_callable_until_a_search_activates_it() {
    let policy = DeskTools::policy(Autonomy::ExternalReversible).defer(DeskToolsName::ShareNote);
    assert!(!policy.offers(DeskToolsName::ShareNote));
    assert!(policy.offers(DeskToolsName::ReadNote));
    let rejected = DeskTools::gate_with(vec![call("1", "shared_note", "{}")], &policy).unwrap_err();
    let message = &rejected.problems()[0].message;
    let listed = message.split("The available tools are:").nth(1).unwrap();
    assert!(
        !listed.contains("share_note") && listed.contains("read_note"),
        "the list is the offered tools: {message}"
    );
    // What is not offered is not permitted: the deferred tool is unknown...
    let share = || vec![call("2", "share_note", r#"{"key":"a"}"#)];
    let rejected = DeskTools::gate_with(share(), &policy).unwrap_err();
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    // ...until the conversation activated it (a search found it).
    let mut activations = toolset::request::Activations::new();
    activations.activate("share_note");
    let request = toolset::request::Request::new(&policy)
        .format(toolset::consumer::Format::OpenAiChat)
        .activated(&activations);
    let plan = request.gate(share());
    assert_eq!(plan.map(|plan| plan.approved().count()).ok(), Some(1));
}

#[test]
fn a_policy_only_tightens() {
    let policy = DeskTools::policy(Autonomy::Reversible)
        .limit_autonomy(Autonomy::ExternalReversible)
        .deny(DeskToolsName::WriteNote)
        .hide(DeskToolsName::DeleteNote);
    assert_eq!(
        policy.autonomy(),
        Autonomy::Reversible,
        "a higher level is ignored"
    );
    let rejected = DeskTools::gate_with(
        vec![
            call("1", "write_note", r#"{"key":"a"}"#),
            call("2", "delete_note", r#"{"key":"a"}"#),
        ],
        &policy,
    )
    .unwrap_err();
    let kinds: Vec<ProblemKind> = rejected
        .problems()
        .iter()
        .map(|problem| problem.kind)
        .collect();
    assert_eq!(kinds, [ProblemKind::Denied, ProblemKind::UnknownTool]);
    let message = &rejected.problems()[1].message;
    let advertised = message.split("The available tools are:").nth(1).unwrap();
    assert!(
        !advertised.contains("delete_note"),
        "a hidden tool is not advertised: {message}"
    );
    let offered: Vec<DeskToolsName> = policy.offered().collect();
    assert!(
        !offered.contains(&DeskToolsName::WriteNote)
            && !offered.contains(&DeskToolsName::DeleteNote)
    );
}

#[tokio::test]
async fn a_handler_taking_the_context_sees_its_own_call_id() {
    let program = vec![
        call("first", "call_id", "{}"),
        call("second", "call_id", ""),
    ];
    let plan = DeskTools::gate(program, Autonomy::ReadOnly).unwrap();
    let report = DeskTools::apply(&mut Desk::default(), &ToolContext::default(), plan).await;
    let ids: Vec<String> = report
        .results()
        .iter()
        .map(|result| result.output.text_content())
        .collect();
    assert_eq!(ids, ["first", "second"]);
}

#[test]
fn progress_and_extensions_reach_handlers_through_the_context() {
    // Progress with nobody listening is a no-op; extensions are found by type.
    let ctx = ToolContext::default().with_extension(Arc::new(5_u8));
    assert_eq!(**ctx.for_call("x").extension::<Arc<u8>>().unwrap(), 5);
}

mod withheld {
    use super::*;
    use proptest::prelude::*;

    const TOOLS: [(&str, Tier); 5] = [
        ("read_note", Tier::ReadOnly),
        ("write_note", Tier::Reversible),
        ("share_note", Tier::ExternalReversible),
        ("delete_note", Tier::Irreversible),
        ("notice", Tier::Irreversible),
    ];
    const LEVELS: [Autonomy; 4] = [
        Autonomy::Off,
        Autonomy::ReadOnly,
        Autonomy::Reversible,
        Autonomy::ExternalReversible,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn a_withheld_call_never_runs_at_any_autonomy(
            program in proptest::collection::vec((0..TOOLS.len(), "[a-z]{1,6}"), 0..12),
            level in 0..LEVELS.len(),
        ) {
            let autonomy = LEVELS[level];
            let calls: Vec<ToolCall> = program
                .iter()
                .enumerate()
                .map(|(i, (tool, word))| {
                    let arguments = if TOOLS[*tool].0 == "notice" {
                        format!(r#"{{"text":"{word}"}}"#)
                    } else {
                        format!(r#"{{"key":"k{word}"}}"#)
                    };
                    call(&i.to_string(), TOOLS[*tool].0, &arguments)
                })
                .collect();
            let plan = DeskTools::gate(calls, autonomy).unwrap();
            let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            let mut desk = Desk::default();
            let report = runtime.block_on(DeskTools::apply(&mut desk, &ToolContext::default(), plan));

            let mut expected_log = Vec::new();
            for ((tool, word), entry) in program.iter().zip(report.entries()) {
                let (name, tier) = TOOLS[*tool];
                let may_run = name != "notice" && autonomy.allows(tier);
                prop_assert_eq!(entry.outcome.is_some(), may_run, "{} at {:?}", name, autonomy);
                if may_run && tier != Tier::ReadOnly {
                    expected_log.push(format!("{} k{word}", name.trim_end_matches("_note")));
                }
            }
            prop_assert_eq!(desk.log, expected_log);
        }
    }
}
