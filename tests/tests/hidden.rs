//! A hidden tool does not exist, in everything the model can see (`Policy::hide`): the
//! list and its history declarations, the gate's messages and did-you-mean, the tool
//! search's results, and what an output may activate (with the Anthropic `tool_reference`
//! it becomes).
//!
//! The oracle is the literal promise: a request over the four tools with some hidden is
//! compared with the same request over a set that never had the hidden ones (one set per
//! subset), byte for byte: every format's list, every declared and offered name, and every
//! answer of the gate and apply to random programs.

use proptest::prelude::*;
use serde_json::Value;
use toolset::consumer::{Format, anthropic};
use toolset::prelude::ToolSet;
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::request::{Activations, Request};
use toolset::search::ToolSearch;
use toolset::search::{Ranking, SEARCH_TOOL_NAME};
use toolset::{Autonomy, Policy, ToolCall, ToolContext, ToolOutput, tool, toolset};

/// Read one message of the inbox, given its numeric id.
#[tool(tier = "read_only")]
async fn read_mail(
    /// The message's id.
    id: Option<u32>,
) -> String {
    format!("mail {id:?}")
}

/// Fetch a whole conversation thread of letters in one go.
#[tool(tier = "read_only", deferred)]
async fn read_mails(
    /// The thread's subject line.
    thread: Option<String>,
) -> String {
    format!("thread {thread:?}")
}

/// Move a letter out of the inbox into cold storage.
#[tool(tier = "reversible")]
async fn archive_mail(
    /// The letter's number.
    id: Option<u32>,
) -> String {
    format!("archived {id:?}")
}

/// Unlock the thread reader and the cold storage for this conversation.
#[tool(tier = "read_only")]
async fn unlock() -> ToolOutput {
    ToolOutput::text("unlocked").activating(["read_mails", "archive_mail"])
}

/// The tools of the sets below, in declared order.
const NAMES: [&str; 4] = ["read_mail", "read_mails", "archive_mail", "unlock"];

toolset! {
    /// All four tools.
    Mail = [read_mail, read_mails, archive_mail, unlock];
    /// The four tools without those of mask 0000.
    Without00 = [read_mail, read_mails, archive_mail, unlock];
    /// The four tools without those of mask 0001.
    Without01 = [read_mails, archive_mail, unlock];
    /// The four tools without those of mask 0010.
    Without02 = [read_mail, archive_mail, unlock];
    /// The four tools without those of mask 0011.
    Without03 = [archive_mail, unlock];
    /// The four tools without those of mask 0100.
    Without04 = [read_mail, read_mails, unlock];
    /// The four tools without those of mask 0101.
    Without05 = [read_mails, unlock];
    /// The four tools without those of mask 0110.
    Without06 = [read_mail, unlock];
    /// The four tools without those of mask 0111.
    Without07 = [unlock];
    /// The four tools without those of mask 1000.
    Without08 = [read_mail, read_mails, archive_mail];
    /// The four tools without those of mask 1001.
    Without09 = [read_mails, archive_mail];
    /// The four tools without those of mask 1010.
    Without10 = [read_mail, archive_mail];
    /// The four tools without those of mask 1011.
    Without11 = [archive_mail];
    /// The four tools without those of mask 1100.
    Without12 = [read_mail, read_mails];
    /// The four tools without those of mask 1101.
    Without13 = [read_mails];
    /// The four tools without those of mask 1110.
    Without14 = [read_mail];
}

/// One random conversation turn: what the policy does to each tool, what the conversation
/// holds, and the model's program.
#[derive(Debug, Clone)]
struct Case {
    autonomy: Autonomy,
    hide: [bool; 4],
    deny: [bool; 4],
    defer: [bool; 4],
    inject: [bool; 4],
    search: ToolSearch,
    activated: Vec<String>,
    history: Vec<String>,
    calls: Vec<(String, String)>,
}

impl Case {
    /// Whether the tool at `index` is concealed: hidden and not brought back by
    /// injection (an injected tool is offered unless denied, and hiding wins).
    fn conceals(&self, index: usize) -> bool {
        let brought_back = self.inject[index] && !self.deny[index];
        self.hide[index] && !brought_back
    }

    fn mask(&self) -> usize {
        (0..4)
            .filter(|&index| self.conceals(index))
            .map(|index| 1 << index)
            .sum()
    }
}

/// Names a model might write: the tools, near misses of them, names no tool has, and the
/// searches' names.
fn any_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "read_mail",
        "read_mails",
        "archive_mail",
        "unlock",
        "read_mailz",
        "archive_mails",
        "unlok",
        "ghost",
        SEARCH_TOOL_NAME,
        "tool_search_tool_bm25",
    ])
    .prop_map(str::to_owned)
}

fn any_arguments() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "{}",
        "",
        r#"{"id": 3}"#,
        r#"{"thread": "budget"}"#,
        r#"{"query": "thread letters storage"}"#,
        r#"{"pattern": "mail|letter"}"#,
        r#"{"query": "mail", "limit": 1}"#,
        "not json",
    ])
    .prop_map(str::to_owned)
}

fn any_case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![
            Autonomy::Off,
            Autonomy::ReadOnly,
            Autonomy::Reversible,
            Autonomy::ExternalReversible,
        ]),
        any::<[bool; 4]>(),
        any::<[bool; 4]>(),
        any::<[bool; 4]>(),
        any::<[bool; 4]>(),
        prop::sample::select(vec![
            ToolSearch::Local(Ranking::Bm25),
            ToolSearch::Local(Ranking::Regex),
            ToolSearch::Hosted(Ranking::Bm25),
            ToolSearch::Hosted(Ranking::Regex),
        ]),
        prop::collection::vec(any_name(), 0..4),
        prop::collection::vec(any_name(), 0..5),
        prop::collection::vec((any_name(), any_arguments()), 1..4),
    )
        .prop_map(
            |(autonomy, hide, deny, defer, inject, search, activated, history, calls)| Case {
                autonomy,
                hide,
                deny,
                defer,
                inject,
                search,
                activated,
                history,
                calls,
            },
        )
}

/// The case's policy over `S`, naming only the tools `S` has.
fn policy<S: ToolSet>(case: &Case) -> Policy<S> {
    let mut policy = Policy::<S>::new(case.autonomy);
    for (index, name) in NAMES.iter().enumerate() {
        let Some(tool) = S::Name::from_name(name) else {
            continue;
        };
        if case.hide[index] {
            policy = policy.hide(tool);
        }
        if case.deny[index] {
            policy = policy.deny(tool);
        }
        if case.defer[index] {
            policy = policy.defer(tool);
        }
    }
    policy
}

/// The case's request over `S` under `policy` to `format`.
fn request<'p, S: ToolSet>(case: &Case, policy: &'p Policy<S>, format: Format) -> Request<'p, S> {
    let mut activations = Activations::new();
    for name in &case.activated {
        activations.activate(name.clone());
    }
    let mut request = Request::new(policy)
        .format(format)
        .search(case.search)
        .activated(&activations)
        .history(&case.history);
    for (index, name) in NAMES.iter().enumerate() {
        if let Some(tool) = S::Name::from_name(name).filter(|_| case.inject[index]) {
            request = request.inject(tool);
        }
    }
    request
}

/// Everything the model reads of the gate's and apply's answer to the case's program, with
/// the set's own name (which only a developer's message names) left out.
fn answer<S: ToolSet<State = ()>>(request: &Request<'_, S>, case: &Case) -> String {
    let calls: Vec<ToolCall> = case
        .calls
        .iter()
        .enumerate()
        .map(|(position, (name, arguments))| {
            ToolCall::new(format!("c{position}"), name.clone(), arguments.clone())
        })
        .collect();
    let text = match request.gate(calls) {
        Err(rejected) => {
            let kinds: Vec<ProblemKind> = rejected
                .problems()
                .iter()
                .map(|problem| problem.kind)
                .collect();
            format!(
                "rejected {kinds:?} {}",
                serde_json::to_string(&rejected.results()).expect("results serialize")
            )
        }
        Ok(plan) => {
            let proposed: Vec<(String, String)> = plan
                .proposals()
                .iter()
                .map(|proposal| (proposal.call().name.clone(), proposal.tier().to_string()))
                .collect();
            let report = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a runtime")
                // `Set::apply` for a set this generic code cannot name.
                .block_on(S::apply(&mut (), &ToolContext::default(), plan));
            let results = report.results();
            let mut activations = Activations::new();
            activations.record(&report);
            format!(
                "planned {proposed:?} {} anthropic {} activated {:?}",
                serde_json::to_string(&results).expect("results serialize"),
                anthropic::results(&results),
                activations.names(),
            )
        }
    };
    text.replace(S::NAME, "<set>")
}

/// The request over `Mail` against the same request over `Sub`, the set without the
/// tools the case conceals.
fn compare<Sub: ToolSet<State = ()>>(case: &Case) -> Result<(), TestCaseError> {
    let full_policy = policy::<Mail>(case);
    let sub_policy = policy::<Sub>(case);
    let concealed: Vec<&'static str> = (0..4)
        .filter(|&index| case.conceals(index))
        .map(|index| Mail::specs()[index].description())
        .collect();
    for format in Format::ALL {
        let full = request::<Mail>(case, &full_policy, format);
        let sub = request::<Sub>(case, &sub_policy, format);
        let list = full.tool_list();
        prop_assert_eq!(&list, &sub.tool_list(), "the {:?} list", format);
        prop_assert_eq!(full.declared(), sub.declared(), "declared in {:?}", format);
        prop_assert_eq!(full.offered(), sub.offered(), "offered in {:?}", format);
        let answer = answer(&full, case);
        prop_assert_eq!(
            &answer,
            &self::answer(&sub, case),
            "the answer in {:?}",
            format
        );
        for description in &concealed {
            prop_assert!(!list.contains(description), "{description} in {list}");
            prop_assert!(!answer.contains(description), "{description} in {answer}");
        }
    }
    Ok(())
}

/// The case against the set that never had the tools it conceals.
fn check(case: &Case) -> Result<(), TestCaseError> {
    match case.mask() {
        0 => compare::<Without00>(case),
        1 => compare::<Without01>(case),
        2 => compare::<Without02>(case),
        3 => compare::<Without03>(case),
        4 => compare::<Without04>(case),
        5 => compare::<Without05>(case),
        6 => compare::<Without06>(case),
        7 => compare::<Without07>(case),
        8 => compare::<Without08>(case),
        9 => compare::<Without09>(case),
        10 => compare::<Without10>(case),
        11 => compare::<Without11>(case),
        12 => compare::<Without12>(case),
        13 => compare::<Without13>(case),
        14 => compare::<Without14>(case),
        // Every tool concealed: no set of no tools exists to compare with.
        _ => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// For random policies (hide, deny, defer, inject over every tool), activations,
    /// histories and programs, in every format: a hidden tool is byte for byte a name no
    /// tool has.
    #[test]
    fn a_hidden_tool_is_indistinguishable_from_a_name_no_tool_has(case in any_case()) {
        check(&case)?;
    }
}

/// Gates and applies `calls` in a fresh request under `policy` to `format`.
fn run<S: ToolSet<State = ()>>(
    policy: &Policy<S>,
    format: Format,
    history: &[&str],
    calls: Vec<ToolCall>,
) -> Result<toolset::report::Report, toolset::report::Rejected> {
    let plan = Request::new(policy)
        .format(format)
        .history(history)
        .gate(calls)?;
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        // `Set::apply` for a set this generic code cannot name.
        .block_on(S::apply(&mut (), &ToolContext::default(), plan)))
}

#[test]
fn a_hidden_tool_the_history_names_is_declared_as_the_stand_in_of_a_name_no_tool_has() {
    let hidden = Mail::policy(Autonomy::ReadOnly).hide(MailName::ArchiveMail);
    // The same tools, never having had `archive_mail`.
    let never = Without04::policy(Autonomy::ReadOnly);
    for format in Format::ALL {
        let list = Request::new(&hidden)
            .format(format)
            .history(["archive_mail"])
            .tool_list();
        let stand_in = Request::new(&never)
            .format(format)
            .history(["archive_mail"])
            .tool_list();
        assert_eq!(list, stand_in, "{format:?}");
        let description = Mail::specs()[MailName::ArchiveMail.index()].description();
        assert!(!list.contains(description), "{format:?}: {list}");
    }
}

#[test]
fn a_call_to_a_hidden_tool_the_history_names_is_answered_as_an_unknown_name() {
    let hidden = Mail::policy(Autonomy::ReadOnly).hide(MailName::ArchiveMail);
    let never = Without04::policy(Autonomy::ReadOnly);
    let call = || vec![ToolCall::new("c1", "archive_mail", r#"{"id": 1}"#)];
    let rejected = run(&hidden, Format::OpenAiChat, &["archive_mail"], call())
        .expect_err("a hidden tool is never permitted");
    let unknown = run(&never, Format::OpenAiChat, &["archive_mail"], call())
        .expect_err("an unknown name is never permitted");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    assert_eq!(
        rejected.problems()[0].message,
        unknown.problems()[0].message
    );
    assert!(
        !rejected.problems()[0]
            .message
            .contains("conversation used it"),
        "{}",
        rejected.problems()[0].message
    );
}

#[test]
fn a_hidden_and_denied_tool_is_an_unknown_name_never_a_denied_one() {
    let hidden = Mail::policy(Autonomy::Reversible)
        .hide(MailName::ArchiveMail)
        .deny(MailName::ArchiveMail);
    let never = Without04::policy(Autonomy::Reversible);
    let call = ToolCall::new("c1", "archive_mail", "{}");
    let rejected = run(&hidden, Format::Mcp, &[], vec![call.clone()]).expect_err("hidden");
    let unknown = run(&never, Format::Mcp, &[], vec![call.clone()]).expect_err("unknown");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    assert_eq!(
        rejected.problems()[0].message,
        unknown.problems()[0].message
    );
    // The one-call check says the same.
    let checked = Request::new(&hidden).check(&call).expect_err("hidden");
    assert_eq!(checked[0].kind, ProblemKind::UnknownTool);
    assert_eq!(
        checked[0].message,
        Request::new(&never).check(&call).expect_err("unknown")[0].message
    );
}

#[test]
fn did_you_mean_never_suggests_a_hidden_tool() {
    let hidden = Mail::policy(Autonomy::ReadOnly).hide(MailName::ReadMail);
    for format in Format::ALL {
        let rejected = run(
            &hidden,
            format,
            &["read_mail"],
            vec![ToolCall::new("c1", "read_mai", "{}")],
        )
        .expect_err("no such tool");
        let message = &rejected.problems()[0].message;
        assert!(!message.contains("\"read_mail\""), "{format:?}: {message}");
    }
}

#[test]
fn an_output_activating_a_hidden_tool_fails_as_one_activating_a_name_the_set_lacks() {
    let hidden = Mail::policy(Autonomy::ReadOnly).hide(MailName::ReadMails);
    let never = Without02::policy(Autonomy::ReadOnly);
    let call = || vec![ToolCall::new("c1", "unlock", "{}")];
    let report = run(&hidden, Format::Anthropic, &[], call()).expect("unlock is offered");
    let unknown = run(&never, Format::Anthropic, &[], call()).expect("unlock is offered");
    let (_, outcome) = report.outcomes().next().expect("one outcome");
    assert!(matches!(outcome, Outcome::Failed { .. }), "{outcome:?}");
    let text = |report: &toolset::report::Report, set: &str| {
        serde_json::to_string(&report.results())
            .expect("results serialize")
            .replace(set, "<set>")
    };
    assert_eq!(text(&report, Mail::NAME), text(&unknown, Without02::NAME));
    let mut activations = Activations::new();
    assert_eq!(activations.record(&report), 0);
}

#[test]
fn anthropic_results_never_reference_a_hidden_tool() {
    let hidden = Mail::policy(Autonomy::ReadOnly).hide(MailName::ReadMails);
    let report = run(
        &hidden,
        Format::Anthropic,
        &[],
        vec![ToolCall::new("c1", "unlock", "{}")],
    )
    .expect("unlock is offered");
    let message: Value = anthropic::results(&report.results());
    let references = |message: &Value| -> Vec<String> {
        message["content"][0]["content"]
            .as_array()
            .expect("content blocks")
            .iter()
            .filter(|block| block["type"] == "tool_reference")
            .map(|block| block["tool_name"].to_string())
            .collect()
    };
    // The call failed, as for an unknown name: it references nothing.
    assert_eq!(references(&message), Vec::<String>::new(), "{message}");
    assert_eq!(message["content"][0]["is_error"], true, "{message}");
    // Not hidden, the same output references it: the test sees what it guards.
    let shown = Mail::policy(Autonomy::ReadOnly);
    let report = run(
        &shown,
        Format::Anthropic,
        &[],
        vec![ToolCall::new("c1", "unlock", "{}")],
    )
    .expect("unlock is offered");
    let message = anthropic::results(&report.results());
    assert_eq!(
        references(&message),
        ["\"read_mails\"", "\"archive_mail\""],
        "{message}"
    );
}

#[test]
fn no_search_finds_a_hidden_tool() {
    // `read_mails` is deferred, so a search could find it, but hidden.
    let hidden = Mail::policy(Autonomy::ReadOnly)
        .hide(MailName::ReadMails)
        .defer(MailName::ArchiveMail);
    for arguments in [r#"{"query": "thread letters"}"#, r#"{"pattern": "thread"}"#] {
        let report = run(
            &hidden,
            Format::OpenAiResponses,
            &[],
            vec![ToolCall::new("c1", SEARCH_TOOL_NAME, arguments)],
        )
        .expect("the search is offered");
        let text = serde_json::to_string(&report.results()).expect("results serialize");
        assert!(!text.contains("read_mails"), "{text}");
        assert!(!text.contains("conversation thread"), "{text}");
    }
}
