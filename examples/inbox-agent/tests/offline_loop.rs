//! The README's first command, run as a user would: the example agent's whole offline
//! loop must show a rejected program and its retry, a proposal with its preview, a
//! skipped call and a failed call, and a deferred tool found by a tool search and called
//! on the next turn; the lethal-trifecta rule holding a forward for the user, approved once;
//! the effect journal across runs and a crash.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `stdout` with the per-run suffix of the scripted model's call ids taken out
/// (`call_2g-3f9c2e` reads `call_2g`), so that the recorded ids can be looked for.
fn without_run_suffix(stdout: &str) -> String {
    let mut out = String::with_capacity(stdout.len());
    let mut rest = stdout;
    while let Some(at) = rest.find("call_") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let id_len = after[5..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(after.len(), |end| end + 5);
        out.push_str(&after[..id_len]);
        rest = &after[id_len..];
        let suffix = rest.strip_prefix('-').filter(|tail| {
            tail.len() >= 6 && tail[..6].bytes().all(|byte| byte.is_ascii_hexdigit())
        });
        if let Some(tail) = suffix {
            rest = &tail[6..];
        }
    }
    out.push_str(rest);
    out
}

/// A fresh directory for one test's database.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inbox-agent-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

/// Runs the example with `args`, whatever its exit status.
fn invoke(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inbox-agent"))
        .args(args)
        .output()
        .expect("the example binary runs")
}

#[test]
fn the_example_agent_runs_its_whole_loop_offline() {
    let dir = fresh_dir("loop");
    let db = dir.join("run.db");
    let output = invoke(&["--db", db.to_str().expect("a UTF-8 path")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = without_run_suffix(&stdout);
    for expected in [
        "- search (tier: read_only)",
        "- send_reply (tier: irreversible) [propose-only, sends outside]",
        "- read_item (tier: read_only) [reads private, untrusted]",
        "- forward (tier: reversible) [sends outside]",
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
        "    escalated: billing@cy-partners.example is outside example.com\n",
        // The run read private mail and text others wrote: the trifecta rule holds the
        // send too, and the human is told why.
        "The run has now read private data (from search, read_item) and untrusted content (from search, read_item).",
        "    held by the trifecta rule: this run has read private data (from search, read_item) \
         and untrusted content (from search, read_item); \"forward\" sends data outside",
        // The run is saved between requests: resumed and saved back at each one.
        "Run saved (generation 5), waiting on 0 proposal(s).",
        "Run saved (generation 10), waiting on 1 proposal(s).",
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

/// Runs the example with `args`; its stdout, after checking it succeeded, without the
/// call ids' per-run suffix.
fn run(args: &[&str]) -> String {
    let output = invoke(args);
    let stdout = without_run_suffix(&String::from_utf8_lossy(&output.stdout));
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
    let dir = fresh_dir("stream");
    let db = dir.join("run.db");
    let db = db.to_str().expect("a UTF-8 path");
    let stdout = run(&["--db", db, "--stream"]);
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
    assert_eq!(outcomes(&stdout), outcomes(&run(&["--db", db])));
}

/// The run id a run printed in its "Approve it with: ... --run <run> approve <id>" line.
fn printed_run_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("Approve it with: "))
        .and_then(|line| line.split_once("--run "))
        .and_then(|(_, rest)| rest.split(' ').next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no run id printed in:\n{stdout}"))
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
    let dir = fresh_dir("approve");
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
    let run_id = printed_run_id(&first);

    let second = run(&["--db", db, "--run", &run_id, "approve", &id]);
    for expected in [
        // The human is shown why the trifecta rule held it, then approves it: it runs.
        "    held by the trifecta rule: this run has read private data (from search, read_item)",
        "call_4c forward: DONE forwarded item 3 (Invoice 4471) to billing@cy-partners.example",
        // The saved run, resumed in this process, gathers the journaled result.
        &format!("Resumed run {run_id} (generation 22)."),
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
        .args(["--db", db, "--run", &run_id, "approve", &id])
        .output()
        .expect("the example binary runs");
    assert!(!third.status.success());
    let stderr = String::from_utf8_lossy(&third.stderr);
    assert!(stderr.contains("already approved at"), "{stderr}");
    assert!(!String::from_utf8_lossy(&third.stdout).contains("forwarded"));

    // The late result was given to the model once: resuming the run again finds nothing.
    let fourth = run(&["--db", db, "--run", &run_id, "resume"]);
    assert!(fourth.contains("Nothing new for the model."), "{fourth}");
    assert!(!fourth.contains("forwarded item 3"), "{fourth}");

    // Every journaled call ended, and each result was marked delivered once sent.
    let journal = run(&["--db", db, "in-doubt"]);
    assert!(
        journal.contains("(Ended calls whose result the model has not been sent: 0.)\nNone."),
        "{journal}"
    );
}

#[test]
fn a_second_full_run_against_the_same_database_runs_every_write_again() {
    let dir = fresh_dir("twice");
    let db = dir.join("run.db");
    let db = db.to_str().expect("a UTF-8 path");
    let outcomes = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("- call_"))
            .map(str::to_owned)
            .collect()
    };
    let first = run(&["--db", db]);
    let second = run(&["--db", db]);
    // The journal refuses a call whose id and arguments it saw start before; each run's
    // calls have ids of their own, so the second conversation is not taken for a replay.
    assert!(
        second.contains("- call_2c set_due_date: DONE item 1 is now due 2026-12-15"),
        "{second}"
    );
    assert_eq!(outcomes(&first), outcomes(&second));
    // Each run waits on its own forward: declining the second's tells that run's model, once.
    let (id, run_id) = (printed_proposal_id(&second), printed_run_id(&second));
    assert_ne!(run_id, printed_run_id(&first));
    let declined = run(&["--db", db, "--run", &run_id, "decline", &id, "not this one"]);
    assert!(
        declined.contains("call_4c to `forward`") && declined.contains("not this one"),
        "{declined}"
    );
    let resumed = run(&["--db", db, "--run", &run_id, "resume"]);
    assert!(resumed.contains("Nothing new for the model."), "{resumed}");
    let journal = run(&["--db", db, "in-doubt"]);
    assert!(journal.contains("sent: 0.)\nNone."), "{journal}");
}

/// The idempotency key in an in-doubt listing's `resolve <key>` line.
fn printed_key(stdout: &str) -> String {
    stdout
        .split_once(" resolve ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no key printed in:\n{stdout}"))
}

#[test]
fn a_call_cut_off_by_a_crash_is_in_doubt_never_rerun_alone_and_resolved_once() {
    let dir = fresh_dir("crash");
    let db = dir.join("run.db");
    let db = db.to_str().expect("a UTF-8 path");

    // A child process is killed inside the handler, after the call's start was journaled.
    let crash = run(&["--db", db, "crash-demo"]);
    for expected in [
        "child: halted inside the handler, before archive 2",
        "Killed the child inside the handler",
        "Started, never ended",
        "archive({\"id\":2}), tier reversible,",
    ] {
        assert!(
            crash.contains(expected),
            "missing {expected:?} in:\n{crash}"
        );
    }
    let key = printed_key(&crash);
    assert!(key.starts_with("call-"), "{key}");

    // A later process is told, and a conversation starting over the same file too; nothing
    // ran it again meanwhile.
    let listed = run(&["--db", db, "in-doubt"]);
    assert!(listed.contains(&format!("- key {key}: ")), "{listed}");
    let conversation = run(&["--db", db]);
    assert!(
        conversation.contains("Note: 1 call(s) in doubt from an earlier crash"),
        "{conversation}"
    );
    assert_eq!(printed_key(&run(&["--db", db, "in-doubt"])), key);

    // The user re-runs it under the same key: it runs once, and the model is told once.
    let rerun = run(&["--db", db, "resolve", &key, "rerun"]);
    for expected in [
        "Ran again under the same key:",
        "archive: DONE archived item 2",
        "What the model is told, once:",
        // How it came to be late: a crash cut it off, not an approval it awaited.
        "was cut off when the host stopped while it ran, and has now been run again. Its result: archived item 2",
    ] {
        assert!(
            rerun.contains(expected),
            "missing {expected:?} in:\n{rerun}"
        );
    }
    let after = run(&["--db", db, "in-doubt"]);
    assert!(after.contains("sent: 0.)\nNone."), "{after}");
    for decision in ["rerun", "done", "failed"] {
        let again = invoke(&["--db", db, "resolve", &key, decision]);
        assert!(!again.status.success(), "resolved twice with {decision}");
        let stderr = String::from_utf8_lossy(&again.stderr);
        assert!(
            stderr.contains("is not in doubt: it ended (done)"),
            "{stderr}"
        );
    }

    // Or decides what happened: marked done, or failed, each told to the model once.
    for (decision, told) in [
        ("done", "Its result: The call ran, but its result was lost"),
        (
            "failed",
            "Its result: The call was interrupted before it took effect",
        ),
    ] {
        let key = printed_key(&run(&["--db", db, "crash-demo"]));
        let resolved = run(&["--db", db, "resolve", &key, decision]);
        assert!(resolved.contains(told), "missing {told:?} in:\n{resolved}");
        assert!(!resolved.contains("Ran again"), "{resolved}");
    }
    let after = run(&["--db", db, "in-doubt"]);
    assert!(after.contains("sent: 0.)\nNone."), "{after}");
}

#[test]
fn the_traced_run_prints_an_execute_tool_span_for_each_call_and_the_gates_decisions() {
    let dir = fresh_dir("trace");
    let db = dir.join("run.db");
    let stdout = run(&["--db", db.to_str().expect("a UTF-8 path"), "--trace"]);
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
    // Traced or not, the agent does the same (this run: the README's first command as is,
    // over the default database).
    let outcomes = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("- call_") || line.starts_with("  -> "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(outcomes(&stdout), outcomes(&run(&[])));
}

/// The console the example serves, killed when the test ends.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One raw HTTP/1.1 request to `address`; the whole answer (the server closes it).
fn http(address: &str, request: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).expect("the console listens");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("a timeout");
    stream.write_all(request.as_bytes()).expect("sent");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[test]
fn the_console_command_serves_the_waiting_proposal_to_the_printed_url_only() {
    use std::io::BufRead;
    let dir = fresh_dir("console");
    let db = dir.join("proposals.db");
    let db = db.to_str().expect("a UTF-8 path");
    run(&["--db", db]);
    let mut served = Served(
        Command::new(env!("CARGO_BIN_EXE_inbox-agent"))
            .args(["--db", db, "console"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the example binary runs"),
    );
    let stdout = served.0.stdout.take().expect("piped");
    // Read on a thread that keeps reading after the URL: closing the pipe early would
    // make the console's next line to stdout fail (a broken pipe) and end it.
    let (sender, urls) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(url) = line.trim().strip_prefix("http://") {
                let _ = sender.send(url.to_owned());
            }
        }
    });
    let url = urls
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the console prints its URL");
    let (address, token) = url
        .split_once("/?token=")
        .expect("the URL carries the token");
    let ask = |path: &str, extra: &str| {
        http(
            address,
            &format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n{extra}Connection: close\r\n\r\n"),
        )
    };
    assert!(
        ask("/api/state", "").starts_with("HTTP/1.1 401"),
        "closed without the token"
    );
    let login = ask(&format!("/?token={token}"), "");
    assert!(login.starts_with("HTTP/1.1 303"), "{login}");
    let cookie = login
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .and_then(|value| value.split(';').next())
        .expect("a session cookie");
    let state = ask("/api/state", &format!("Cookie: {cookie}\r\n"));
    assert!(state.starts_with("HTTP/1.1 200"), "{state}");
    // The forward the trifecta rule held waits, with every reason it was held.
    assert!(state.contains(r#""tool":"forward""#), "{state}");
    assert!(state.contains(r#""kind":"trifecta""#), "{state}");
}
