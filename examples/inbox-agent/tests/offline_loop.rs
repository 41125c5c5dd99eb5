//! The README's first command, run as a user would: the example agent's whole offline
//! loop must show a rejected program and its retry, a proposal with its preview, a
//! skipped call and a failed call.

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
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
}
