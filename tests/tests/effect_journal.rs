//! The effect journal (issue 27 item 1): each store records starts and ends, lists calls
//! in doubt, resolves them and delivers each ended result once (memory, SQLite, and
//! PostgreSQL on the server `scripts/postgres` starts); apply journals writing calls
//! through it, fails closed, hands handlers the idempotency key; `Approvals::rerun` goes
//! through the approval's checks or the gate; and a host killed (SIGKILL) hundreds of
//! times at random points of apply runs no call twice, leaves every call done, failed or
//! in doubt and reported, and delivers every ended result once
//! (`src/bin/journal_worker.rs`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolset::__private::messages;
use toolset::approval::{ApprovalError, Approved};
use toolset::prelude::*;
use toolset::report::Outcome;
use toolset::request::Request;
use toolset::store::{
    CallEnd, CallStart, EndOutcome, Ending, JournalEntry, StartOutcome, Store, StoreError, auto_key,
};
use toolset::{
    Approvals, Autonomy, MemoryStore, PostgresStore, SqliteStore, ToolCall, ToolContext,
    ToolOutput, tool, toolset,
};
use toolset_tests::postgres;
use toolset_tests::rng::Rng;

const WORKER: &str = env!("CARGO_BIN_EXE_journal_worker");

/// A fresh directory under the target dir for one test's files.
fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("effect-journal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

// ---------------------------------------------------------------------------------------
// The stores.

fn call(id: &str, note: &str) -> ToolCall {
    ToolCall::new(id, "write", format!(r#"{{"note":"{note}"}}"#))
}

fn start(id: &str) -> CallStart {
    CallStart::new(&call(id, id), toolset::Tier::Reversible, 10)
}

fn done(at_ms: u64) -> CallEnd {
    CallEnd::of(&Outcome::Done(ToolOutput::text("wrote")), at_ms)
}

/// Everything a journal promises, on a fresh store.
fn a_journal_keeps_its_promises<S: Store>(store: &S) {
    // Start, and never start again.
    let first = start("c1");
    assert_eq!(
        store.start(&first).expect("as the journal promises"),
        StartOutcome::Started
    );
    let StartOutcome::AlreadyStarted(earlier) =
        store.start(&first).expect("as the journal promises")
    else {
        panic!("a second start of one key is refused");
    };
    assert_eq!(earlier.key, auto_key(&call("c1", "c1")));
    assert_eq!(earlier.call, call("c1", "c1"));
    assert_eq!(earlier.tier, toolset::Tier::Reversible);
    assert_eq!(earlier.attempts, 1);
    assert!(earlier.in_doubt());
    assert_eq!(earlier.action_key(), call("c1", "c1").action_key());
    // The same call with its arguments spelled otherwise has the same key.
    let respelled = ToolCall::new("c1", "write", r#"{ "note" : "c1" }"#);
    assert_eq!(auto_key(&respelled), first.key);
    assert_ne!(auto_key(&call("c2", "c1")), first.key);
    // In doubt until it ends; ended once.
    let keys = |entries: Vec<JournalEntry>| -> Vec<String> {
        entries.into_iter().map(|entry| entry.key).collect()
    };
    assert_eq!(
        keys(store.in_doubt().expect("as the journal promises")),
        std::slice::from_ref(&first.key)
    );
    assert_eq!(
        keys(store.undelivered().expect("as the journal promises")),
        Vec::<String>::new()
    );
    assert!(
        !store
            .mark_delivered(&first.key, 11)
            .expect("as the journal promises")
    );
    assert_eq!(
        store
            .end(&first.key, &done(12))
            .expect("as the journal promises"),
        EndOutcome::Ended
    );
    assert_eq!(
        store
            .end(&first.key, &done(13))
            .expect("as the journal promises"),
        EndOutcome::AlreadyEnded(done(12))
    );
    assert!(
        store
            .in_doubt()
            .expect("as the journal promises")
            .is_empty()
    );
    // Delivered once.
    let undelivered = store.undelivered().expect("as the journal promises");
    assert_eq!(keys(undelivered.clone()), std::slice::from_ref(&first.key));
    let reply = undelivered[0].reply().expect("an ended entry has a reply");
    assert_eq!(reply.call_id, "c1");
    assert_eq!(reply.output, ToolOutput::text("wrote"));
    assert!(
        store
            .mark_delivered(&first.key, 14)
            .expect("as the journal promises")
    );
    assert!(
        !store
            .mark_delivered(&first.key, 15)
            .expect("as the journal promises")
    );
    assert!(
        store
            .undelivered()
            .expect("as the journal promises")
            .is_empty()
    );
    assert_eq!(
        store
            .entry(&first.key)
            .expect("as the journal promises")
            .expect("as the journal promises")
            .delivered_at_ms,
        Some(14)
    );
    // The host resolves calls in doubt: done, failed; the first end stands.
    let (second, third) = (start("c2"), start("c3"));
    store.start(&second).expect("as the journal promises");
    store.start(&third).expect("as the journal promises");
    assert_eq!(store.in_doubt().expect("as the journal promises").len(), 2);
    assert_eq!(
        store
            .mark_done(&second.key, 20)
            .expect("as the journal promises"),
        EndOutcome::Ended
    );
    assert_eq!(
        store
            .mark_failed(&third.key, 21)
            .expect("as the journal promises"),
        EndOutcome::Ended
    );
    assert!(matches!(
        store
            .mark_failed(&second.key, 22)
            .expect("as the journal promises"),
        EndOutcome::AlreadyEnded(_)
    ));
    let second_end = store
        .entry(&second.key)
        .expect("as the journal promises")
        .expect("as the journal promises")
        .end
        .expect("as the journal promises");
    assert_eq!(second_end.ending, Ending::Done);
    let third_end = store
        .entry(&third.key)
        .expect("as the journal promises")
        .expect("as the journal promises")
        .end
        .expect("as the journal promises");
    assert_eq!(third_end.ending, Ending::Failed);
    assert!(
        third_end
            .output()
            .expect("as the journal promises")
            .is_error()
    );
    assert_eq!(
        store.undelivered().expect("as the journal promises").len(),
        2
    );
    // A re-run: handed back once, at the attempt the host saw; the next start runs it.
    let fourth = start("c4");
    store.start(&fourth).expect("as the journal promises");
    assert!(
        !store
            .rerun(&fourth.key, 2)
            .expect("as the journal promises"),
        "not at attempt 2"
    );
    assert!(
        store
            .rerun(&fourth.key, 1)
            .expect("as the journal promises")
    );
    assert!(
        !store
            .rerun(&fourth.key, 1)
            .expect("as the journal promises"),
        "handed back once"
    );
    assert!(
        store
            .entry(&fourth.key)
            .expect("as the journal promises")
            .expect("as the journal promises")
            .rerun
    );
    assert_eq!(
        store.start(&fourth).expect("as the journal promises"),
        StartOutcome::Started
    );
    let again = store
        .entry(&fourth.key)
        .expect("as the journal promises")
        .expect("as the journal promises");
    assert_eq!((again.attempts, again.rerun), (2, false));
    assert!(matches!(
        store.start(&fourth).expect("as the journal promises"),
        StartOutcome::AlreadyStarted(_)
    ));
    // An ended call is never handed back.
    assert!(!store.rerun(&first.key, 1).expect("as the journal promises"));
    // A call from the model's code keeps its maker: a re-run is gated as what it was.
    let from_code = call("c5", "code").with_caller(toolset::call::Caller::code("program", "p1"));
    let coded = CallStart::new(&from_code, toolset::Tier::Reversible, 40);
    store.start(&coded).expect("as the journal promises");
    assert_eq!(
        store
            .entry(&coded.key)
            .expect("as the journal promises")
            .expect("as the journal promises")
            .call,
        from_code
    );
    store
        .mark_failed(&coded.key, 41)
        .expect("as the journal promises");
    // Unknown keys.
    assert_eq!(
        store
            .end("call-none", &done(1))
            .expect("as the journal promises"),
        EndOutcome::Unknown
    );
    assert!(
        !store
            .rerun("call-none", 1)
            .expect("as the journal promises")
    );
    assert_eq!(
        store.entry("call-none").expect("as the journal promises"),
        None
    );
    // An approved proposal's effect is its call's start, keyed by the proposal's id.
    let plan =
        Tools::gate([call("p1", "approved")], Autonomy::ReadOnly).expect("as the journal promises");
    let approvals = Approvals::new(store);
    let id = approvals
        .submit(&plan.proposals()[0])
        .expect("as the journal promises");
    assert_eq!(
        store.entry(id.as_str()).expect("as the journal promises"),
        None,
        "not before approval"
    );
    let reviewed = plan.proposals()[0].reviewed();
    let policy = Tools::policy(Autonomy::ReadOnly);
    let Ok(Approved::Run(_)) = approvals.approve(&reviewed, &Request::new(&policy)) else {
        panic!("approved");
    };
    let entry = store
        .entry(id.as_str())
        .expect("as the journal promises")
        .expect("the effect is the start");
    assert_eq!(entry.call, call("p1", "approved"));
    assert_eq!(entry.tier, toolset::Tier::Reversible);
    assert!(
        entry.in_doubt(),
        "approved and not run (the plan was dropped)"
    );
    assert!(
        store
            .get(&id)
            .expect("as the journal promises")
            .expect("as the journal promises")
            .effect
            .is_some()
    );
    assert_eq!(
        store
            .end(id.as_str(), &done(30))
            .expect("as the journal promises"),
        EndOutcome::Ended
    );
    // Ending it leaves the proposal resolved, never again approvable.
    assert!(
        approvals
            .approve(&reviewed, &Request::new(&policy))
            .is_err()
    );
}

#[test]
fn the_memory_store_journals() {
    a_journal_keeps_its_promises(&MemoryStore::new());
}

#[test]
fn the_sqlite_store_journals_and_keeps_it_across_opens() {
    let dir = tempdir("sqlite");
    let path = dir.join("journal.db");
    a_journal_keeps_its_promises(&SqliteStore::open(&path).unwrap());
    let reopened = SqliteStore::open(&path).unwrap();
    assert_eq!(reopened.in_doubt().unwrap().len(), 1, "c4, started again");
}

#[test]
fn a_sqlite_database_from_before_the_journal_is_migrated_and_its_effects_are_not_in_doubt() {
    let dir = tempdir("migrate");
    let path = dir.join("old.db");
    {
        let old = rusqlite::Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE toolset_proposals (id TEXT PRIMARY KEY NOT NULL, proposal TEXT NOT NULL,
                 decision TEXT, resolved_at_ms INTEGER);
             CREATE TABLE toolset_effects (proposal_id TEXT PRIMARY KEY NOT NULL,
                 started_at_ms INTEGER NOT NULL);
             INSERT INTO toolset_effects VALUES ('0123456789abcdef0123456789abcdef', 5);",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert!(store.in_doubt().unwrap().is_empty());
    assert_eq!(
        store.entry("0123456789abcdef0123456789abcdef").unwrap(),
        None
    );
    store.start(&start("c1")).unwrap();
    assert_eq!(store.in_doubt().unwrap().len(), 1);
    drop(store);
    // Opening it again migrates nothing twice.
    assert_eq!(
        SqliteStore::open(&path).unwrap().in_doubt().unwrap().len(),
        1
    );
}

#[test]
fn the_postgres_store_journals() {
    let Some(url) = postgres::url("journal") else {
        return;
    };
    let url = postgres::fresh_database(&url, "journal");
    a_journal_keeps_its_promises(&PostgresStore::connect(&url).unwrap());
    let reconnected = PostgresStore::connect(&url).unwrap();
    assert_eq!(
        reconnected.in_doubt().unwrap().len(),
        1,
        "c4, started again"
    );
}

// ---------------------------------------------------------------------------------------
// Apply through the journal.

/// What the handlers saw.
#[derive(Default)]
struct Seen {
    keys: Vec<(String, Option<String>)>,
}

/// Write a note.
#[tool(tier = "reversible")]
async fn write(
    seen: &mut Seen,
    ctx: &ToolContext,
    /// The note.
    note: String,
) -> String {
    seen.keys
        .push((note.clone(), ctx.idempotency_key().map(str::to_owned)));
    format!("wrote {note}")
}

/// Read the notes.
#[tool(tier = "read_only")]
async fn read(seen: &Seen, ctx: &ToolContext) -> String {
    assert_eq!(
        ctx.idempotency_key(),
        None,
        "read-only calls are not journaled"
    );
    format!("{} notes", seen.keys.len())
}

toolset! {
    /// The journal tests' tools.
    Tools<Seen> = [write, read];
}

fn run<S: Store>(
    seen: &mut Seen,
    plan: toolset::plan::Plan<Tools>,
    journal: &S,
) -> toolset::report::Report {
    block_on(Tools::apply_journaled(
        seen,
        &ToolContext::default(),
        plan,
        journal,
    ))
}

/// Runs `future` to its end on a runtime of its own.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(future)
}

#[test]
fn apply_journals_writing_calls_under_their_key_and_never_runs_one_twice() {
    let store = MemoryStore::new();
    let mut seen = Seen::default();
    let program = [call("c1", "one"), ToolCall::new("c2", "read", "{}")];
    let plan = Tools::gate(program.clone(), Autonomy::Reversible).unwrap();
    let report = run(&mut seen, plan, &store);
    let key = auto_key(&program[0]);
    assert_eq!(seen.keys, [("one".to_owned(), Some(key.clone()))]);
    let entries = report.entries();
    assert_eq!(entries[0].journal.as_ref().unwrap().key, key);
    assert_eq!(entries[0].journal.as_ref().unwrap().problem, None);
    assert_eq!(entries[1].journal, None, "read-only: not journaled");
    assert_eq!(report.journaled_keys().collect::<Vec<_>>(), [key.as_str()]);
    let entry = store.entry(&key).unwrap().unwrap();
    assert_eq!(entry.end.as_ref().unwrap().ending, Ending::Done);
    assert_eq!(
        entry.reply().unwrap().output,
        report.results()[0].output,
        "the journal keeps what the model reads"
    );
    // The same call again before its result was delivered (the host died before sending
    // it, and sends the model's response again): not run, answered with its result.
    let plan = Tools::gate(program.clone(), Autonomy::Reversible).unwrap();
    let replayed = run(&mut seen, plan, &store);
    assert_eq!(seen.keys.len(), 1, "ran twice");
    assert_eq!(replayed.results()[0].output, report.results()[0].output);
    assert_eq!(
        replayed.journaled_keys().collect::<Vec<_>>(),
        [key.as_str()]
    );
    // Delivered, the same call again is refused: the model had its answer.
    assert!(store.mark_delivered(&key, 1).unwrap());
    let plan = Tools::gate(program, Autonomy::Reversible).unwrap();
    let report = run(&mut seen, plan, &store);
    assert_eq!(seen.keys.len(), 1);
    let Some(Outcome::Refused { reason }) = &report.entries()[0].outcome else {
        panic!("refused: {:?}", report.entries()[0].outcome);
    };
    assert!(reason.contains("already started once"), "{reason}");
    assert!(
        report.entries()[0]
            .journal
            .as_ref()
            .unwrap()
            .problem
            .is_some()
    );
    assert_eq!(
        report.journaled_keys().count(),
        0,
        "nothing of its own to deliver"
    );
}

/// A store whose journal fails where it is told to.
struct Failing {
    store: MemoryStore,
    starts: bool,
    ends: bool,
}

impl Store for Failing {
    fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError> {
        if self.starts {
            return Err(StoreError::new("the disk is full"));
        }
        self.store.start(start)
    }
    fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
        if self.ends {
            return Err(StoreError::new("the disk is full"));
        }
        self.store.end(key, end)
    }
    toolset_tests::forward_store!(store: insert, get, resolve, decline, usage, expired, forget,
        waiting, entry, in_doubt, rerun, undelivered, mark_delivered,
        load_run, save_run, newest_generation, pins, pin);
}

#[test]
fn a_journal_failing_before_the_handler_keeps_it_from_running_and_after_it_keeps_the_result() {
    let mut seen = Seen::default();
    let failing = Failing {
        store: MemoryStore::new(),
        starts: true,
        ends: false,
    };
    let plan = Tools::gate([call("c1", "one")], Autonomy::Reversible).unwrap();
    let report = run(&mut seen, plan, &failing);
    assert!(seen.keys.is_empty(), "fail closed");
    let entry = &report.entries()[0];
    let Some(Outcome::Refused { reason }) = &entry.outcome else {
        panic!("refused: {:?}", entry.outcome);
    };
    assert!(
        reason.contains("could not be recorded before running"),
        "{reason}"
    );
    let problem = entry.journal.as_ref().unwrap().problem.as_deref().unwrap();
    assert!(problem.contains("the disk is full"), "{problem}");

    let failing = Failing {
        store: MemoryStore::new(),
        starts: false,
        ends: true,
    };
    let plan = Tools::gate([call("c1", "one")], Autonomy::Reversible).unwrap();
    let report = run(&mut seen, plan, &failing);
    assert_eq!(seen.keys.len(), 1);
    let entry = &report.entries()[0];
    assert_eq!(
        entry.outcome,
        Some(Outcome::Done(ToolOutput::text("wrote one")))
    );
    let problem = entry.journal.as_ref().unwrap().problem.as_deref().unwrap();
    assert!(problem.contains("could not be journaled"), "{problem}");
    assert_eq!(
        failing.store.in_doubt().unwrap().len(),
        1,
        "listed in doubt"
    );
}

#[test]
fn an_approved_call_runs_under_its_proposal_id_and_a_rerun_passes_the_approval_checks_again() {
    let approvals = Approvals::new(MemoryStore::new());
    let policy = Tools::policy(Autonomy::ReadOnly);
    let plan = Tools::gate([call("c1", "approved")], Autonomy::ReadOnly).unwrap();
    let id = approvals.submit(&plan.proposals()[0]).unwrap();
    let reviewed = plan.proposals()[0].reviewed();
    let Ok(Approved::Run(call)) = approvals.approve(&reviewed, &Request::new(&policy)) else {
        panic!("approved");
    };
    // The process dies before apply: the approval is in doubt.
    drop(call);
    let in_doubt = approvals.store().in_doubt().unwrap();
    assert_eq!(in_doubt.len(), 1);
    assert_eq!(in_doubt[0].key, id.as_str());
    // A re-run under a policy denying the tool now is refused, and changes nothing.
    let denying = Tools::policy(Autonomy::ReadOnly).deny(ToolsName::Write);
    assert!(matches!(
        approvals.rerun(&in_doubt[0], &Request::new(&denying)),
        Err(ApprovalError::Invalid(_))
    ));
    assert!(!approvals.store().entry(id.as_str()).unwrap().unwrap().rerun);
    let Ok(Approved::Run(call)) = approvals.rerun(&in_doubt[0], &Request::new(&policy)) else {
        panic!("re-run");
    };
    assert!(matches!(
        approvals.rerun(&in_doubt[0], &Request::new(&policy)),
        Err(ApprovalError::NotInDoubt(_))
    ));
    let mut seen = Seen::default();
    let report = block_on(call.apply(&mut seen, &ToolContext::default()));
    assert_eq!(
        seen.keys,
        [("approved".to_owned(), Some(id.as_str().to_owned()))]
    );
    assert_eq!(report.journaled_keys().collect::<Vec<_>>(), [id.as_str()]);
    let entry = approvals.store().entry(id.as_str()).unwrap().unwrap();
    assert_eq!(entry.attempts, 2);
    assert_eq!(entry.end.unwrap().ending, Ending::Done);
    assert!(approvals.store().in_doubt().unwrap().is_empty());
}

#[test]
fn a_call_without_a_proposal_is_rerun_through_the_gate_under_the_same_key() {
    let approvals = Approvals::new(MemoryStore::new());
    let store = approvals.store();
    // Started, then the process died.
    let started = CallStart::new(&call("c1", "one"), toolset::Tier::Reversible, 1);
    store.start(&started).unwrap();
    let in_doubt = store.in_doubt().unwrap();
    // Under a request that would propose it now: not re-run.
    let strict = Tools::policy(Autonomy::ReadOnly);
    assert!(matches!(
        approvals.rerun(&in_doubt[0], &Request::new(&strict)),
        Err(ApprovalError::NeedsApproval)
    ));
    let policy = Tools::policy(Autonomy::Reversible);
    let Ok(Approved::Run(call)) = approvals.rerun(&in_doubt[0], &Request::new(&policy)) else {
        panic!("re-run");
    };
    let mut seen = Seen::default();
    block_on(call.apply(&mut seen, &ToolContext::default()));
    assert_eq!(seen.keys, [("one".to_owned(), Some(started.key.clone()))]);
    let entry = store.entry(&started.key).unwrap().unwrap();
    assert_eq!((entry.attempts, entry.in_doubt()), (2, false));
    // Ended: no more re-runs.
    assert!(matches!(
        approvals.rerun(&entry, &Request::new(&policy)),
        Err(ApprovalError::NotInDoubt(_))
    ));
}

// ---------------------------------------------------------------------------------------
// SIGKILL.

fn lines(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn worker(db: &Path, dir: &Path, round: u32, calls: u32) -> Command {
    let mut command = Command::new(WORKER);
    command
        .arg(db)
        .arg(dir)
        .arg(round.to_string())
        .arg(calls.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Runs the worker to its end, failing the test if it fails.
fn finish(mut command: Command) {
    let output = command.output().expect("the worker runs");
    assert!(
        output.status.success(),
        "the worker failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_host_killed_at_random_points_of_apply_runs_no_call_twice_and_delivers_every_result_once() {
    const CALLS: u32 = 6;
    const KILLS: u32 = 500;
    // In memory where the system has a tmpfs: a SIGKILL loses nothing the page cache holds,
    // so the disk's syncs would only slow the kills down.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        let dir = shm.join(format!("toolset-effect-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("/dev/shm is writable");
        dir
    } else {
        tempdir("sigkill")
    };
    let db = dir.join("journal.db");
    let mut rng = Rng::new("TOOLSET_JOURNAL_SEED");
    // One round undisturbed (it creates the database), then another: how long a run
    // takes, where the kills must fall.
    finish(worker(&db, &dir, 0, CALLS));
    let started = Instant::now();
    finish(worker(&db, &dir, 1, CALLS));
    let span = started.elapsed().as_micros() as u64;
    println!("an undisturbed run takes {span} µs");
    let deadline = Instant::now() + Duration::from_secs(50);
    let (mut kills, mut round) = (0, 2);
    while kills < KILLS {
        assert!(
            Instant::now() < deadline,
            "only {kills} kills in time: the test is too slow"
        );
        // A round runs until a worker finishes it, killed at random before that.
        loop {
            let mut child = worker(&db, &dir, round, CALLS).spawn().expect("spawns");
            std::thread::sleep(Duration::from_micros(rng.below(span)));
            if child.try_wait().expect("waits").is_none() {
                // `Child::kill` is SIGKILL on Unix: no destructor, no rollback.
                child.kill().expect("kills");
                child.wait().expect("reaped");
                kills += 1;
                continue;
            }
            let output = child.wait_with_output().expect("reaped");
            assert!(
                output.status.success(),
                "the worker failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            break;
        }
        round += 1;
    }
    // A last start recovers what the last kill left.
    finish(worker(&db, &dir, 0, 0));
    println!("{kills} kills over {round} rounds");

    let store = SqliteStore::open(&db).unwrap();
    // No call ran twice.
    let effects = lines(&dir.join("effects"));
    let ran: HashSet<&String> = effects.iter().collect();
    assert_eq!(ran.len(), effects.len(), "a key's effect happened twice");
    // Every call of every round ended: done or failed, none left in doubt.
    assert!(store.in_doubt().unwrap().is_empty());
    let reported: HashMap<String, String> = lines(&dir.join("reported"))
        .into_iter()
        .filter_map(|line| {
            let (key, decision) = line.split_once(' ')?;
            Some((key.to_owned(), decision.to_owned()))
        })
        .collect();
    let delivered = lines(&dir.join("delivered"));
    let delivered_keys: Vec<&str> = delivered
        .iter()
        .filter_map(|line| line.split(' ').next())
        .collect();
    let unique: HashSet<&str> = delivered_keys.iter().copied().collect();
    assert_eq!(
        unique.len(),
        delivered_keys.len(),
        "a result delivered twice"
    );
    // Each round's first call was approved: its key is its proposal's id.
    let proposals: HashMap<String, String> = lines(&dir.join("proposals"))
        .into_iter()
        .filter_map(|line| {
            let (at, id) = line.split_once(' ')?;
            Some((at.to_owned(), id.to_owned()))
        })
        .collect();
    let mut in_doubt_seen = 0;
    for r in 0..round {
        for i in 0..CALLS {
            let call = ToolCall::new(
                format!("r{r}c{i}"),
                "effect",
                format!(r#"{{"note":"round {r} call {i}"}}"#),
            );
            let key = if i == 0 {
                proposals
                    .get(&r.to_string())
                    .unwrap_or_else(|| panic!("round {r}'s proposal was never submitted"))
                    .clone()
            } else {
                auto_key(&call)
            };
            let Some(entry) = store.entry(&key).unwrap() else {
                panic!("the call r{r}c{i} never started");
            };
            assert_eq!(entry.attempts, 1, "never re-run on its own");
            assert_eq!(entry.call, call);
            let end = entry.end.as_ref().expect("ended");
            // Done exactly when its effect happened.
            assert_eq!(
                end.ending == Ending::Done,
                ran.contains(&key),
                "r{r}c{i}: ended {:?}, effect {}",
                end.ending,
                ran.contains(&key)
            );
            // A call the host resolved was reported in doubt, decided by the effect.
            let output = end.output();
            let marked = output == Some(ToolOutput::text(messages::MARKED_DONE))
                || output == Some(ToolOutput::error(messages::MARKED_FAILED));
            if marked {
                in_doubt_seen += 1;
                let decision = reported.get(&key).expect("reported in doubt");
                assert_eq!(decision == "done", ran.contains(&key));
            }
            // Delivered, once, and marked so.
            assert!(unique.contains(key.as_str()), "r{r}c{i} never delivered");
            assert!(entry.delivered_at_ms.is_some());
        }
    }
    assert!(store.undelivered().unwrap().is_empty());
    assert_eq!(
        unique.len(),
        (round * CALLS) as usize,
        "deliveries of calls no round made"
    );
    assert_eq!(
        reported.len(),
        in_doubt_seen,
        "each report resolved its call"
    );
    let marked_done = reported
        .values()
        .filter(|decision| *decision == "done")
        .count();
    println!(
        "{} calls, {} effects, {in_doubt_seen} found in doubt and resolved ({marked_done} \
         marked done, {} marked failed)",
        round * CALLS,
        effects.len(),
        in_doubt_seen - marked_done
    );
    if dir.starts_with(shm) {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
