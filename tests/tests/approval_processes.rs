//! Approvals across processes sharing one store, a SQLite file or a PostgreSQL database
//! (the server `scripts/postgres` starts; see `src/postgres.rs`): two resolvers racing,
//! and a resolver killed (SIGKILL) at random points. The record of what ran is the ledger
//! file the tool appends to (`src/ledger.rs`); the resolver is
//! `src/bin/approval_worker.rs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolset::approval::ProposalId;
use toolset::prelude::*;
use toolset::store::Store;
use toolset::{Approvals, Autonomy, PostgresStore, SqliteStore, ToolCall};
use toolset_tests::ledger::{LedgerTools, runs};
use toolset_tests::postgres;

const WORKER: &str = env!("CARGO_BIN_EXE_approval_worker");

/// A fresh directory under the target dir for one test's files.
fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("approval-processes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

/// Where the processes' proposals wait: a SQLite file or a PostgreSQL database's URL,
/// written as the worker takes it.
#[derive(Clone)]
enum Db {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Db {
    /// A SQLite file in `dir`.
    fn sqlite(dir: &Path) -> Db {
        Db::Sqlite(dir.join("proposals.db"))
    }

    /// A fresh database on the test server, `None` when there is none (and none is
    /// required).
    fn postgres(test: &str) -> Option<Db> {
        let url = postgres::url(test)?;
        Some(Db::Postgres(postgres::fresh_database(&url, test)))
    }

    /// Either store, opened.
    fn open(&self) -> Arc<dyn Store> {
        match self {
            Db::Sqlite(path) => Arc::new(SqliteStore::open(path).expect("the database opens")),
            Db::Postgres(url) => {
                Arc::new(PostgresStore::connect(url).expect("the database connects"))
            }
        }
    }

    fn arg(&self) -> std::ffi::OsString {
        match self {
            Db::Sqlite(path) => path.clone().into_os_string(),
            Db::Postgres(url) => url.into(),
        }
    }
}

/// `count` proposals of `pay`, each with its own note, submitted to the store `db`.
fn submit(db: &Db, count: usize) -> Vec<(ProposalId, String)> {
    let approvals = Approvals::new(db.open());
    (0..count)
        .map(|index| {
            let note = format!("bill-{index}");
            let call = ToolCall::new(
                format!("call_{index}"),
                "pay",
                format!("{{\"note\":\"{note}\"}}"),
            );
            let plan = LedgerTools::gate([call], Autonomy::ExternalReversible).expect("valid");
            let id = approvals.submit(&plan.proposals()[0]).expect("stored");
            (id, note)
        })
        .collect()
}

fn worker(db: &Db, ledger: &Path, ids: &[(ProposalId, String)], looping: bool) -> Command {
    let mut command = Command::new(WORKER);
    if looping {
        command.arg("--loop");
    }
    command
        .arg(db.arg())
        .arg(ledger)
        .args(ids.iter().map(|(id, _)| id.as_str()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// How many times each note is in the ledger.
fn counted(ledger: &Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for note in runs(ledger) {
        *counts.entry(note).or_insert(0) += 1;
    }
    counts
}

#[test]
fn an_approval_runs_its_call_at_most_once_across_two_processes_sharing_one_sqlite_file() {
    let dir = tempdir("two");
    two_processes(&Db::sqlite(&dir), &dir.join("ledger.txt"));
}

#[test]
fn an_approval_runs_its_call_at_most_once_across_two_processes_sharing_one_postgres_database() {
    let Some(db) = Db::postgres("two_processes") else {
        return;
    };
    let dir = tempdir("two-postgres");
    two_processes(&db, &dir.join("ledger.txt"));
}

fn two_processes(db: &Db, ledger: &Path) {
    let ledger = ledger.to_path_buf();
    let proposals = submit(db, 24);
    // Both processes try every proposal, in opposite orders, at the same time.
    let mut reversed = proposals.clone();
    reversed.reverse();
    let first = worker(db, &ledger, &proposals, false)
        .spawn()
        .expect("spawns");
    let second = worker(db, &ledger, &reversed, false)
        .spawn()
        .expect("spawns");
    let outputs = [first, second].map(|child| child.wait_with_output().expect("waits"));
    let mut ran: HashMap<String, usize> = HashMap::new();
    for output in &outputs {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if let Some(id) = line.strip_prefix("ran ") {
                *ran.entry(id.to_owned()).or_insert(0) += 1;
            }
        }
    }
    for (id, note) in &proposals {
        assert_eq!(
            ran.get(id.as_str()),
            Some(&1),
            "{id} ran in both or neither"
        );
        assert_eq!(counted(&ledger).get(note), Some(&1), "{note} in the ledger");
    }
    assert_eq!(runs(&ledger).len(), proposals.len());
}

/// A small xorshift generator seeded from the clock: where each kill falls.
struct Jitter(u64);

impl Jitter {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |since| since.subsec_nanos());
        Jitter(u64::from(nanos) | 1)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

#[test]
fn a_resolver_killed_at_random_points_leaves_every_proposal_pending_or_resolved_once_and_nothing_run_twice()
 {
    let dir = tempdir("crash");
    killed_resolvers(&Db::sqlite(&dir), &dir.join("ledger.txt"));
}

#[test]
fn a_resolver_of_a_postgres_database_killed_at_random_points_runs_nothing_twice() {
    let Some(db) = Db::postgres("killed") else {
        return;
    };
    let dir = tempdir("crash-postgres");
    killed_resolvers(&db, &dir.join("ledger.txt"));
}

fn killed_resolvers(db: &Db, ledger: &Path) {
    let ledger = ledger.to_path_buf();
    let proposals = submit(db, 300);
    let mut jitter = Jitter::new();
    let started = Instant::now();
    let mut kills = 0;
    for _round in 0..40 {
        let mut child = worker(db, &ledger, &proposals, true)
            .spawn()
            .expect("spawns");
        std::thread::sleep(Duration::from_millis(5 + jitter.below(60)));
        if child.try_wait().expect("polls").is_none() {
            // `Child::kill` is SIGKILL on Unix: no destructor, no rollback in the process.
            child.kill().expect("kills");
            kills += 1;
        }
        child.wait().expect("reaps");
        let store = db.open();
        let pending = proposals
            .iter()
            .filter(|(id, _)| {
                let stored = store.get(id).expect("readable").expect("still stored");
                stored.resolution.is_none()
            })
            .count();
        if pending == 0 || started.elapsed() > Duration::from_secs(12) {
            break;
        }
    }
    assert!(
        kills > 0,
        "no round was killed mid-way: the test proved nothing"
    );
    let store = db.open();
    let counts = counted(&ledger);
    for (id, note) in &proposals {
        let stored = store.get(id).expect("readable").expect("still stored");
        let times = counts.get(note).copied().unwrap_or(0);
        assert!(times <= 1, "{note} ran {times} times");
        if times == 1 {
            let resolution = stored
                .resolution
                .expect("a call that ran was resolved first");
            assert_eq!(resolution.decision, toolset::store::Decision::Approved);
        }
    }
    // Every line of the ledger is one of the proposals' notes: none torn by a kill.
    let notes: Vec<&String> = proposals.iter().map(|(_, note)| note).collect();
    assert!(runs(&ledger).iter().all(|note| notes.contains(&note)));
}
