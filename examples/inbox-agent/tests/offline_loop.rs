//! The README's first command, run as a user would: the example agent's whole offline
//! loop must show a rejected program and its retry, a proposal with its preview, a
//! skipped call and a failed call, and a deferred tool found by a tool search and called
//! on the next turn.

use std::process::Command;

#[test]
fn the_example_agent_runs_its_whole_loop_offline() {
    let output = Command::new(env!("CARGO_BIN_EXE_inbox-agent"))
        .output()
        .expect("the example binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    for expected in [
        "- search (tier: read_only)",
        "- send_reply (tier: irreversible) [propose-only]",
        "The gate rejected the whole program; nothing ran:",
        "Did you mean \"search\"?",
        "call_2g (irreversible) needs approval: send_reply",
        "    | To: ana@example.com",
        "call_2d set_due_date: SKIPPED item 3 is already due 2026-12-01",
        "call_2e archive: FAILED there is no item 9",
        "User approved call_2g: the host sends the reply to ana@example.com.",
        "- #1 Quarterly report   due 2026-12-15",
        "- add_label (tier: reversible) [idempotent, deferred: found by tool_search]",
        // The deferred tool is not offered until the search finds it...
        "This request offers: search, read_item, set_due_date, archive, forward, send_reply, tool_search\n",
        "call_3a tool_search: DONE Found 1 tool(s)",
        "Activated for the next request: add_label",
        // ...then it is, appended after the others, and the call runs.
        "This request offers: search, read_item, set_due_date, archive, forward, send_reply, tool_search, add_label\n",
        "call_4a add_label: DONE labelled item 1 finance",
        "- #3 Invoice 4471       due 2026-12-01 [finance]",
        // A forward outside the company escalates past the autonomy, and says why.
        "call_4c (irreversible) needs approval: forward(",
        "    escalated: billing@cy-partners.example is outside example.com",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    // The unknown-tool message lists what is offered, never the deferred tool.
    let rejection = stdout
        .lines()
        .find(|line| line.contains("Did you mean"))
        .expect("the rejection line");
    assert!(!rejection.contains("add_label"), "{rejection}");
}

/// Runs the example with `args`; its stdout, after checking it succeeded.
fn run(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_inbox-agent"))
        .args(args)
        .output()
        .expect("the example binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// `[  812 of 3216 bytes] call_1a ...`: how much of the stream had arrived when the
/// call line was printed.
fn arrival(line: &str) -> Option<(usize, usize)> {
    let inner = line.strip_prefix('[')?.split(" bytes]").next()?;
    let (received, total) = inner.split_once(" of ")?;
    Some((received.trim().parse().ok()?, total.trim().parse().ok()?))
}

#[test]
fn the_streamed_replay_shows_each_call_checked_as_it_arrives_and_runs_the_same_loop() {
    let stdout = run(&["--stream"]);
    for expected in [
        "=== Model streams its calls (1-bad-program.sse) ===",
        "call_1a serch({\"query\":\"report\"}): REJECTED: There is no tool named \"serch\". Did you mean \"search\"?",
        "call_2a search({\"query\":\"report\",\"limit\":5}): valid, may run",
        "call_2g send_reply(",
        "): valid, needs approval",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    // One by one: the calls of the corrected program came out at different points of
    // the stream, the first well before its end.
    let arrivals: Vec<(usize, usize)> = stdout
        .lines()
        .filter(|line| line.contains("call_2"))
        .filter_map(arrival)
        .collect();
    assert_eq!(arrivals.len(), 7, "{stdout}");
    assert!(arrivals[0].0 < arrivals[0].1 / 2, "{arrivals:?}");
    assert!(
        arrivals.windows(2).all(|pair| pair[0].0 < pair[1].0),
        "{arrivals:?}"
    );
    // The assembled programs are the recorded ones: the rest of the run is the same.
    let outcomes = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("- call_") || line.starts_with("  -> "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(outcomes(&stdout), outcomes(&run(&[])));
}

/// The proposal id a run printed in its "Approve it with: ... approve <id>" line.
fn printed_proposal_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("Approve it with: "))
        .and_then(|line| line.rsplit(' ').next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no proposal id printed in:\n{stdout}"))
}

#[test]
fn a_proposal_persisted_in_sqlite_is_approved_by_a_second_invocation_once_and_its_late_result_shown()
 {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inbox-agent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    let db = dir.join("proposals.db");
    let db = db.to_str().expect("a UTF-8 path");
    let first = run(&["--db", db]);
    assert!(
        first.contains("\"tool_call_id\":\"call_4c\",\"content\":\"Awaiting approval"),
        "{first}"
    );
    assert!(
        !first.contains("forwarded item 3"),
        "the forward waits: {first}"
    );
    let id = printed_proposal_id(&first);

    let second = run(&["--db", db, "approve", &id]);
    for expected in [
        "call_4c forward: DONE forwarded item 3 (Invoice 4471) to billing@cy-partners.example",
        "Follow-up message for the model:",
        "Update: your earlier call call_4c to `forward`, which was awaiting approval, has now been resolved",
    ] {
        assert!(
            second.contains(expected),
            "missing {expected:?} in:\n{second}"
        );
    }

    // The approval is used up: a third invocation is refused and runs nothing.
    let third = Command::new(env!("CARGO_BIN_EXE_inbox-agent"))
        .args(["--db", db, "approve", &id])
        .output()
        .expect("the example binary runs");
    assert!(!third.status.success());
    let stderr = String::from_utf8_lossy(&third.stderr);
    assert!(stderr.contains("already approved at"), "{stderr}");
    assert!(!String::from_utf8_lossy(&third.stdout).contains("forwarded"));
}

#[test]
fn the_traced_run_prints_an_execute_tool_span_for_each_call_and_the_gates_decisions() {
    let stdout = run(&["--trace"]);
    let spans: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("execute_tool{") && line.ends_with(": close"))
        .collect();
    // Two rejected calls of the first program, six run of the second, one tool search,
    // and one call of the deferred tool.
    assert!(spans.len() >= 9, "{stdout}");
    for expected in [
        "otel.name=execute_tool search",
        "gen_ai.operation.name=\"execute_tool\"",
        "gen_ai.tool.call.id=\"call_2e\"",
        "error.type=\"failed\"",
        "error.type=\"unknown_tool\"",
        "toolset.gate.rejected=2",
        "toolset.proposal.created",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    // Traced or not, the agent does the same.
    let outcomes = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("- call_") || line.starts_with("  -> "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(outcomes(&stdout), outcomes(&run(&[])));
}
