//! The conversation driver across processes, killed: hosts (`driver_worker`) SIGKILLed at
//! random points of a request or of a human's decision, each request sent again (as a host
//! whose request failed sends it again) and each conversation resumed in another process,
//! over SQLite and over PostgreSQL. Whatever the kills: no call runs twice, no call id is
//! given two final answers, every call the model made is answered, nothing is in doubt
//! unless a kill fell between its start on record (before its handler begins; for a call
//! a human approved, the approval) and its end on record, and what the model read is in the run's exposure before its next gate (the
//! worker checks that at each request, failing otherwise).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolset::store::Store;
use toolset::{PostgresStore, SqliteStore};
use toolset_tests::postgres;
use toolset_tests::rng::Rng;

const WORKER: &str = env!("CARGO_BIN_EXE_driver_worker");

fn lines(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn tempdir(name: &str) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_owned()
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
    };
    let dir = base.join(format!("toolset-driver-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a writable temp dir");
    dir
}

/// One worker invocation.
fn worker(db: &str, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(WORKER);
    command
        .arg(db)
        .arg(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs one step to its end: killed at a random moment (`kill` of `span` µs) and run again
/// until it finishes (a request whose answers were sent, `done <token>` in `sent`, is not
/// sent again: a host that sent them got its answer), waiting out the lease of a killed
/// request that held the conversation. Fails the test on any other exit. Returns how many
/// times it was killed.
fn until_done(db: &str, dir: &Path, args: &[&str], rng: &mut Rng, span: u64, kill: bool) -> u32 {
    let token = args.get(2).copied().unwrap_or_default();
    let mut kills = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "{args:?} never finished");
        let mut child = worker(db, dir, args).spawn().expect("the worker spawns");
        if kill && kills < 3 && rng.below(2) == 0 {
            std::thread::sleep(Duration::from_micros(rng.below(span)));
            if child.try_wait().expect("waits").is_none() {
                // SIGKILL: no destructor, no rollback.
                child.kill().expect("kills");
                child.wait().expect("reaped");
                kills += 1;
                let done = format!("done {token}");
                if args[0] == "step" && lines(&dir.join("sent")).contains(&done) {
                    return kills;
                }
                continue;
            }
        }
        let output = child.wait_with_output().expect("reaped");
        match output.status.code() {
            Some(0) => return kills,
            // Another request holds the conversation: a killed one's lease.
            Some(3) => std::thread::sleep(Duration::from_millis(100)),
            _ => panic!(
                "{args:?} failed ({:?}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        }
    }
}

/// A random conversation of `steps` steps, its hosts killed at random, then the checks.
/// `in_doubt` lists the store's calls in doubt: each call's id, and whether a human
/// approved it (its key is its proposal's id).
fn killed_at_random(db: &str, dir: &Path, steps: u32, in_doubt: impl Fn() -> Vec<(String, bool)>) {
    let mut rng = Rng::new("TOOLSET_DRIVER_SEED");
    let run = {
        let output = worker(db, dir, &["start"])
            .output()
            .expect("the worker runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    };
    // How long an undisturbed request takes: where the kills must fall.
    let started = Instant::now();
    until_done(db, dir, &["step", &run, "first", ""], &mut rng, 0, false);
    let span = (started.elapsed().as_micros() as u64).max(1);
    println!("an undisturbed request takes {span} µs");
    let tag = std::process::id();
    let tools = ["diary", "page", "note", "send"];
    let mut made: Vec<String> = Vec::new();
    let mut decided: HashSet<String> = HashSet::new();
    // The steps whose request was killed at least once: only their calls may be in doubt.
    let mut killed_steps: HashSet<String> = HashSet::new();
    let mut kills = 0;
    for step in 0..steps {
        let proposals = lines(&dir.join("proposals"));
        let open: Vec<&String> = proposals
            .iter()
            .filter(|id| !decided.contains(*id))
            .collect();
        match rng.below(5) {
            0 | 1 if !open.is_empty() => {
                let id = open[rng.below(open.len() as u64) as usize].clone();
                let verb = if rng.below(3) == 0 {
                    "decline"
                } else {
                    "approve"
                };
                kills += until_done(db, dir, &[verb, &id], &mut rng, span, true);
                decided.insert(id);
            }
            _ => {
                let count = 1 + rng.below(3);
                let calls: Vec<String> = (0..count)
                    .map(|i| {
                        let tool = tools[rng.below(tools.len() as u64) as usize];
                        format!("k{tag}s{step}-{tool}-{i}={tool}")
                    })
                    .collect();
                made.extend(
                    calls
                        .iter()
                        .map(|call| call.split('=').next().unwrap_or("").to_owned()),
                );
                let calls = calls.join(",");
                let token = format!("s{step}");
                let killed = until_done(
                    db,
                    dir,
                    &["step", &run, &token, &calls],
                    &mut rng,
                    span,
                    true,
                );
                if killed > 0 {
                    killed_steps.insert(token);
                }
                kills += killed;
            }
        }
    }
    // Every proposal left ends (they expire after 3 s), and the last request gathers them.
    std::thread::sleep(Duration::from_millis(3200));
    until_done(db, dir, &["step", &run, "last", ""], &mut rng, span, false);
    println!("{kills} kills over {steps} steps");

    // No call ran twice.
    let effects = lines(&dir.join("effects"));
    let ended: Vec<&str> = effects
        .iter()
        .filter_map(|line| line.strip_prefix("end "))
        .collect();
    let unique: HashSet<&str> = ended.iter().copied().collect();
    assert_eq!(
        unique.len(),
        ended.len(),
        "an effect happened twice: {effects:?}"
    );
    // No call id got two final answers; every call the model made got one answer at least.
    let sent = lines(&dir.join("sent"));
    let mut finals: HashMap<&str, u32> = HashMap::new();
    let mut answered: HashSet<&str> = HashSet::new();
    for line in &sent {
        let mut parts = line.splitn(3, ' ');
        let (Some(id), Some(kind)) = (parts.next(), parts.next()) else {
            continue;
        };
        if id == "done" {
            continue;
        }
        answered.insert(id);
        if kind == "final" {
            *finals.entry(id).or_default() += 1;
        }
    }
    for (id, count) in &finals {
        assert_eq!(
            *count,
            1,
            "{id} was given {count} final answers:\n{}",
            sent.join("\n")
        );
    }
    for id in &made {
        assert!(
            answered.contains(id.as_str()),
            "{id} was never answered:\n{}",
            sent.join("\n")
        );
    }
    // Nothing in doubt unless a kill fell between its start on record and its end on
    // record: the start is journaled before the handler begins (so a kill there leaves
    // the call in doubt though the handler never began), and for a call a human approved,
    // the approval is its start (so a resolution reset to pending finds it on record). A
    // call of a step no kill touched is never in doubt; one whose handler ended with its
    // end on record neither.
    for (id, approved) in in_doubt() {
        let Some(rest) = id.strip_prefix(&format!("k{tag}")) else {
            continue;
        };
        let step = rest.split('-').next().unwrap_or_default();
        assert!(
            approved || killed_steps.contains(step),
            "{id} is in doubt, though it was not approved and no kill touched its step {step}"
        );
    }
}

/// Each in-doubt entry's call id, and whether it was a human's approval.
fn in_doubt_of(entries: Vec<toolset::store::JournalEntry>) -> Vec<(String, bool)> {
    entries
        .into_iter()
        .map(|entry| {
            let approved = toolset::approval::ProposalId::parse(&entry.key).is_some();
            (entry.call.id, approved)
        })
        .collect()
}

#[test]
fn hosts_killed_at_random_over_sqlite_run_no_call_twice_and_answer_each_once() {
    let dir = tempdir("sqlite");
    let db = dir.join("driver.db");
    let db = db.to_str().expect("a UTF-8 path").to_owned();
    killed_at_random(&db, &dir, 40, || {
        let store = SqliteStore::open(&db).expect("the database");
        in_doubt_of(store.in_doubt().expect("listed"))
    });
}

#[test]
fn hosts_killed_at_random_over_postgres_run_no_call_twice_and_answer_each_once() {
    let Some(url) = postgres::url("driver_processes over PostgreSQL") else {
        return;
    };
    let dir = tempdir("postgres");
    killed_at_random(&url, &dir, 30, || {
        let store = PostgresStore::connect(&url).expect("the server");
        in_doubt_of(store.in_doubt().expect("listed"))
    });
}
