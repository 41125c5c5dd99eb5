//! Another MCP server's tools in a toolbox (`McpTools`, feature `mcp-client`), against the
//! fixture server `tests/src/bin/fixture_mcp.rs` run as a child process.
#![cfg(feature = "mcp-client")]

use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolset::context::{Progress, ProgressSink};
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::toolbox::{McpTools, Renamed};
use toolset::{Autonomy, Tier, ToolCall, ToolContext, Toolbox, tool, toolset};

/// The host's own state.
#[derive(Default)]
pub struct Log {
    lines: Vec<String>,
}

/// Write a line to the host's log.
#[tool(tier = "reversible")]
pub async fn write_line(log: &mut Log, line: String) -> String {
    log.lines.push(line.clone());
    format!("wrote {line}")
}

toolset! { pub Host<Log> = [write_line]; }

async fn fixture() -> McpTools {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
    McpTools::connect_stdio("fix", command)
        .await
        .expect("the fixture server starts")
}

/// The host trusts the server's read-only hint, and says `die` and `toggle` are reversible.
async fn mapped() -> McpTools {
    fixture()
        .await
        .tier(|tool| {
            if tool.annotations.read_only() {
                Tier::ReadOnly
            } else {
                Tier::Irreversible
            }
        })
        .tier_of("die", Tier::Reversible)
        .tier_of("toggle", Tier::Reversible)
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

#[tokio::test]
async fn a_proxied_tool_without_a_tier_mapping_is_never_auto_run() {
    let toolbox = Host::toolbox()
        .with_namespace(fixture().await)
        .expect("the fixture's tools register");
    // The server hints `readOnlyHint: true`; without the host's word it is irreversible.
    let tool = toolbox.runtime_tool("fix_echo").expect("namespaced");
    assert_eq!(tool.spec().tier(), Tier::Irreversible);
    let plan = toolbox
        .request(&Host::policy(Autonomy::ExternalReversible))
        .expect("no unknown runtime name")
        .gate([call("1", "fix_echo", r#"{"text":"hi"}"#)])
        .expect("a valid call");
    assert_eq!(plan.approved().count(), 0, "nothing auto-runs");
    assert_eq!(plan.proposals().len(), 1);
    assert_eq!(plan.proposals()[0].tier(), Tier::Irreversible);
    let report = Host::apply(&mut Log::default(), &ToolContext::default(), plan).await;
    assert_eq!(report.entries()[0].outcome, None, "the call did not run");
}

/// Collects progress reports.
#[derive(Default)]
struct Reports(Mutex<Vec<(String, Progress)>>);

impl ProgressSink for Reports {
    fn report(&self, call_id: &str, progress: Progress) {
        if let Ok(mut reports) = self.0.lock() {
            reports.push((call_id.to_owned(), progress));
        }
    }
}

#[tokio::test]
async fn a_proxied_call_runs_with_progress_and_a_remote_error_is_a_failed_outcome() {
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await)
        .expect("registers");
    let reports = Arc::new(Reports::default());
    let ctx = ToolContext::default().with_progress(reports.clone());
    let plan = toolbox
        .request(&Host::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .gate([
            call("1", "fix_echo", r#"{"text":"hi"}"#),
            call("2", "fix_fail", "{}"),
        ])
        .expect("valid");
    let report = Host::apply(&mut Log::default(), &ctx, plan).await;
    let outcomes: Vec<&Outcome> = report.outcomes().map(|(_, outcome)| outcome).collect();
    assert!(
        matches!(outcomes[0], Outcome::Done(output) if output.text_content() == "echo: hi"),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[1], Outcome::Failed { message } if message == "the remote tool failed"),
        "{outcomes:?}"
    );
    let reports = reports.0.lock().expect("not poisoned");
    assert_eq!(reports.len(), 1, "the server's progress reached the call");
    assert_eq!(reports[0].0, "1");
    assert_eq!(reports[0].1.total, Some(2.0));
}

#[tokio::test]
async fn a_server_dying_mid_call_gives_a_failed_outcome_and_the_other_calls_still_run() {
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await)
        .expect("registers");
    let (report, log) = apply_within(
        &toolbox,
        [
            call("1", "fix_echo", r#"{"text":"before"}"#),
            call("2", "fix_die", "{}"),
            call("3", "write_line", r#"{"line":"after"}"#),
            call("4", "fix_echo", r#"{"text":"too late"}"#),
        ],
        Duration::from_secs(20),
        "a dead server does not hang apply",
    )
    .await;
    assert_eq!(kinds(&report), ["done", "failed", "done", "failed"]);
    assert_eq!(
        log.lines,
        ["after"],
        "the compiled write after the death ran"
    );
    let Some((_, Outcome::Failed { message })) = report.outcomes().nth(1) else {
        panic!("the dying call failed");
    };
    assert!(message.contains("\"fix\" did not answer"), "{message}");
}

/// Waits until the namespace refreshed past `target`.
async fn refreshed(refreshes: &mut tokio::sync::watch::Receiver<u64>, target: u64) {
    tokio::time::timeout(
        Duration::from_secs(10),
        refreshes.wait_for(|now| *now >= target),
    )
    .await
    .expect("the server's list_changed arrives")
    .expect("the namespace lives");
}

async fn run(toolbox: &Toolbox<Host>, name: &str) -> Outcome {
    let plan = toolbox
        .request(&Host::policy(Autonomy::Reversible))
        .expect("no unknown runtime name")
        .gate([call("1", name, "{}")])
        .expect("valid");
    let report = Host::apply(&mut Log::default(), &ToolContext::default(), plan).await;
    report.outcomes().next().expect("one outcome").1.clone()
}

#[tokio::test]
async fn list_changed_adds_and_removes_tools() {
    let tools = mapped().await;
    let mut refreshes = tools.refreshes();
    let toolbox = Host::toolbox().with_namespace(tools).expect("registers");
    let policy = Host::policy(Autonomy::Reversible);
    let offered = |toolbox: &Toolbox<Host>| -> Vec<String> {
        toolbox
            .request(&policy)
            .expect("no unknown runtime name")
            .format(toolset::consumer::Format::Mcp)
            .offered()
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    assert!(!offered(&toolbox).contains(&"fix_extra".to_owned()));

    let before = *refreshes.borrow();
    assert!(run(&toolbox, "fix_toggle").await.is_done());
    refreshed(&mut refreshes, before + 1).await;
    assert!(offered(&toolbox).contains(&"fix_extra".to_owned()));
    assert!(run(&toolbox, "fix_extra").await.is_done());

    let before = *refreshes.borrow();
    assert!(run(&toolbox, "fix_toggle").await.is_done());
    refreshed(&mut refreshes, before + 1).await;
    assert!(!offered(&toolbox).contains(&"fix_extra".to_owned()));
    let rejected = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([call("1", "fix_extra", "{}")])
        .expect_err("a vanished tool is unknown");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
}

/// The kinds of a report's outcomes, in the model's order.
/// Gates `calls` under `Reversible` autonomy and applies them, failing with `hangs` if
/// apply has not ended within `bound`: the report, and the log the compiled writes wrote.
async fn apply_within(
    toolbox: &Toolbox<Host>,
    calls: impl IntoIterator<Item = ToolCall>,
    bound: Duration,
    hangs: &str,
) -> (toolset::report::Report, Log) {
    let plan = toolbox
        .request(&Host::policy(Autonomy::Reversible))
        .expect("no unknown runtime name")
        .gate(calls)
        .expect("valid");
    let mut log = Log::default();
    let report = tokio::time::timeout(bound, Host::apply(&mut log, &ToolContext::default(), plan))
        .await
        .expect(hangs);
    (report, log)
}

fn kinds(report: &toolset::report::Report) -> Vec<&'static str> {
    report
        .outcomes()
        .map(|(_, outcome)| outcome.kind())
        .collect()
}

#[tokio::test]
async fn a_proxied_call_has_a_sixty_second_limit_by_default() {
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await)
        .expect("registers");
    for name in ["fix_echo", "fix_hang", "fix_garbage"] {
        let tool = toolbox.runtime_tool(name).expect("namespaced");
        assert_eq!(
            tool.spec().timeout(),
            Some(toolset::toolbox::DEFAULT_CALL_TIMEOUT)
        );
    }
    assert_eq!(
        toolset::toolbox::DEFAULT_CALL_TIMEOUT,
        Duration::from_secs(60)
    );
}

#[tokio::test]
async fn a_call_the_server_never_answers_ends_at_the_namespace_limit_and_the_others_run() {
    let limit = Duration::from_millis(500);
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await.with_call_timeout(limit))
        .expect("registers");
    let (report, log) = apply_within(
        &toolbox,
        [
            call("1", "fix_hang", "{}"),
            call("2", "write_line", r#"{"line":"after"}"#),
            call("3", "fix_echo", r#"{"text":"still there"}"#),
        ],
        Duration::from_secs(10),
        "a server that never answers does not hold apply past the call's limit",
    )
    .await;
    assert_eq!(kinds(&report), ["timed_out", "done", "done"]);
    let Some((_, timed_out)) = report.outcomes().next() else {
        panic!("the hanging call has an outcome");
    };
    assert!(
        matches!(timed_out, Outcome::TimedOut { after } if *after == limit),
        "{timed_out:?}"
    );
    let told = timed_out.to_tool_output().text_content();
    assert!(
        told.contains("500 ms"),
        "the model is told the limit: {told}"
    );
    assert_eq!(log.lines, ["after"]);
}

#[tokio::test]
async fn a_server_answering_garbage_fails_the_waiting_call_at_once_and_later_calls_run() {
    // The default limit (60 s) stays: the garbled answer must fail the call long before.
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await)
        .expect("registers");
    // Consecutive read-only calls run together, and a garbled line fails every call then
    // waiting (any of them may have been its author): the writes between keep each
    // proxied call alone in flight.
    let started = std::time::Instant::now();
    let (report, log) = apply_within(
        &toolbox,
        [
            call("1", "fix_echo", r#"{"text":"before"}"#),
            call("2", "write_line", r#"{"line":"a"}"#),
            call("3", "fix_garbage", "{}"),
            call("4", "write_line", r#"{"line":"b"}"#),
            call("5", "fix_echo", r#"{"text":"after"}"#),
            call("6", "write_line", r#"{"line":"c"}"#),
            // JSON, but not JSON-RPC.
            call("7", "fix_garbage", r#"{"text":"{\"hello\":\"world\"}"}"#),
            call("8", "write_line", r#"{"line":"d"}"#),
            call("9", "fix_echo", r#"{"text":"last"}"#),
        ],
        Duration::from_secs(10),
        "a garbled answer does not hold apply",
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        kinds(&report),
        [
            "done", "done", "failed", "done", "done", "done", "failed", "done", "done"
        ],
        "{:#?}",
        report.outcomes().collect::<Vec<_>>()
    );
    for (_, outcome) in report.outcomes().filter(|(_, outcome)| !outcome.is_done()) {
        let Outcome::Failed { message } = outcome else {
            panic!("{outcome:?}");
        };
        assert!(
            message.contains("\"fix\" answered with something that is not JSON-RPC"),
            "{message}"
        );
    }
    let Some((_, Outcome::Done(last))) = report.outcomes().last() else {
        panic!("the last call ran");
    };
    assert_eq!(last.text_content(), "echo: last");
    assert_eq!(log.lines, ["a", "b", "c", "d"]);
}

/// A remote name no provider takes once prefixed (past 64 characters, or with MCP's `.`) is
/// shortened, not refused: valid, the same on every connection, unique even for two names
/// alike but for their ends, listed by `renamed()` at registration, offered under that
/// name, named so by a policy, and forwarded to the server under its own name.
#[tokio::test]
async fn a_remote_name_too_long_or_invalid_for_a_provider_is_shortened_stably_and_uniquely() {
    let tools = fixture().await.tier(|_| Tier::ReadOnly);
    let toolbox = Host::toolbox()
        .with_namespace(tools.clone())
        .expect("every fixture tool registers, the long ones included");
    let renamed = tools.renamed();
    let remotes: Vec<&str> = renamed.iter().map(|r| r.remote.as_str()).collect();
    assert_eq!(remotes.len(), 3, "{renamed:?}");
    assert!(remotes.contains(&"files.read"), "{renamed:?}");
    let locals: Vec<&str> = renamed.iter().map(|r| r.local.as_str()).collect();
    for local in &locals {
        assert!(local.len() <= 64 && local.starts_with("fix_"), "{local}");
        assert!(
            local
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{local}"
        );
    }
    assert_ne!(locals[0], locals[1], "alike names stay apart");
    // The same names from a second connection: deterministic.
    let again = fixture().await;
    let again_toolbox = Host::toolbox()
        .with_namespace(again.clone())
        .expect("registers");
    assert_eq!(again.renamed(), renamed);
    drop(again_toolbox);
    // Offered, callable and forwarded under the server's own name.
    let policy = Host::policy(Autonomy::Reversible);
    let request = toolbox.request(&policy).expect("no unknown runtime name");
    let offered = request.offered();
    for Renamed { remote, local } in &renamed {
        assert!(offered.contains(&local.as_str()), "{local} in {offered:?}");
        assert_eq!(tools.local_name(remote), *local);
        let outcome = run(&toolbox, local).await;
        let Outcome::Done(output) = outcome else {
            panic!("{local}: {outcome:?}");
        };
        assert_eq!(output.text_content(), format!("ran {remote}"));
    }
    // A policy names a shortened tool by its local name, checked like any runtime name.
    let dotted = tools.local_name("files.read");
    let policy = Host::policy(Autonomy::Reversible).deny(dotted.clone());
    let rejected = toolbox
        .request(&policy)
        .expect("the local name is the toolbox's")
        .gate([call("1", &dotted, "{}")])
        .expect_err("denied");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::Denied);
}

#[tokio::test]
async fn a_proxied_tool_the_host_does_not_label_reads_untrusted_content_and_sends_outside() {
    let toolbox = Host::toolbox()
        .with_namespace(mapped().await)
        .expect("the fixture's tools register");
    let echo = toolbox.runtime_tool("fix_echo").expect("namespaced");
    assert_eq!(echo.spec().labels(), toolset::Labels::UNKNOWN_REMOTE);
    // Read-only by the host's tier, it runs in a fresh run; once the run has read private
    // data and untrusted content, the same call is proposed.
    let policy = Host::policy(Autonomy::ExternalReversible);
    let request = toolbox.request(&policy).expect("no unknown runtime name");
    let plan = request
        .gate([call("1", "fix_echo", r#"{"text":"hi"}"#)])
        .expect("a valid call");
    assert_eq!(plan.approved().count(), 1);
    let report = Host::apply(&mut Log::default(), &ToolContext::default(), plan).await;
    let mut exposure = toolset::run::Exposure::new();
    exposure.record(&report);
    assert_eq!(
        exposure.untrusted_from(),
        ["fix_echo"],
        "what it returned is untrusted"
    );
    exposure.read("read_inbox", toolset::Labels::NONE.reading_private());
    let plan = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .exposure(&exposure)
        .gate([call("2", "fix_echo", r#"{"text":"the salary"}"#)])
        .expect("a valid call");
    assert_eq!(plan.approved().count(), 0, "held back: it may send outside");
    let reason = plan.proposals()[0].escalated_because().expect("a reason");
    assert!(
        reason.contains("from read_inbox") && reason.contains("from fix_echo"),
        "{reason}"
    );
}

#[tokio::test]
async fn the_host_labels_proxied_tools() {
    let tools = mapped().await.labels(|tool| match tool.name.as_str() {
        "echo" => toolset::Labels::NONE.reading_private(),
        _ => toolset::Labels::UNKNOWN_REMOTE,
    });
    let toolbox = Host::toolbox()
        .with_namespace(tools)
        .expect("the fixture's tools register");
    let echo = toolbox.runtime_tool("fix_echo").expect("namespaced");
    assert!(echo.spec().labels().reads_private() && !echo.spec().labels().sends_outside());
    let die = toolbox.runtime_tool("fix_die").expect("namespaced");
    assert_eq!(die.spec().labels(), toolset::Labels::UNKNOWN_REMOTE);
}
