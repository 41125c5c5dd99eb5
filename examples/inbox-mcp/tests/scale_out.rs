//! The scale-out deployment the README describes ("Deploying replicas"), run as it would
//! be: two `inbox-mcp` processes on two loopback ports, sharing one PostgreSQL proposal
//! store (the throwaway cluster `scripts/postgres` starts) and one seal key, each writing
//! the inbox's changes to one shared change log, so that what ran is counted across both.
//!
//! The client speaks MCP 2026-07-28 over streamable HTTP with no session, as a stateless
//! client behind a load balancer does: every request stands alone, and the retry of an
//! approval may reach either replica.

#![cfg(feature = "postgres")]

mod support;

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use support::raw_http::{call, post};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use toolset::PostgresStore;
use toolset::approval::ProposalId;
use toolset::store::Store;

/// The seal key both replicas read from the environment.
const KEY: &str = "the replicas share this 32-byte+ seal key";

/// The start of the withheld message (`DEFAULT_WITHHELD_MESSAGE`).
const WITHHELD: &str = "Needs human approval";

/// One running replica and the address it serves `/mcp` on.
struct Replica {
    process: Child,
    addr: SocketAddr,
}

/// What a deployment of replicas shares: the store's URL and the change log.
struct Deployment {
    store_url: String,
    change_log: PathBuf,
}

impl Deployment {
    /// A fresh database for `name` and an empty change log; `None` (the test skipped, as
    /// `toolset_tests::postgres::url` says) without a PostgreSQL server.
    fn new(name: &str) -> Option<Deployment> {
        let server = toolset_tests::postgres::url(name)?;
        let store_url = toolset_tests::postgres::fresh_database(&server, name);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("scale-out-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the target dir is writable");
        Some(Deployment {
            store_url,
            change_log: dir.join("changes"),
        })
    }

    /// Starts a replica on a free loopback port, as the README deploys one.
    async fn replica(&self) -> Replica {
        let mut process = Command::new(env!("CARGO_BIN_EXE_inbox-mcp"))
            .args(["--http", "127.0.0.1:0"])
            .args(["--approval-key-env", "INBOX_MCP_APPROVAL_KEY"])
            .args(["--store-env", "INBOX_MCP_STORE"])
            .arg("--change-log")
            .arg(&self.change_log)
            .env("INBOX_MCP_APPROVAL_KEY", KEY)
            .env("INBOX_MCP_STORE", &self.store_url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the replica starts");
        let stderr = process.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let addr = tokio::time::timeout(Duration::from_secs(20), async {
            while let Some(line) = lines.next_line().await.expect("stderr reads") {
                if let Some(url) = line.split("http://").nth(1) {
                    let addr = url.trim_end_matches("/mcp");
                    return addr.parse::<SocketAddr>().expect("a socket address");
                }
            }
            panic!("the replica ended before serving");
        })
        .await
        .expect("the replica serves in time");
        // Keep draining what the replica says, so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Replica { process, addr }
    }

    /// Every change either replica made, in order.
    fn changes(&self) -> Vec<String> {
        std::fs::read_to_string(&self.change_log)
            .map(|text| text.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

/// The first call: must be answered `input_required`; its `requestState`.
async fn ask(addr: SocketAddr, tool: &str, arguments: Value) -> String {
    let result = call(addr, tool, json!({"arguments": arguments})).await;
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

/// The retry carrying the human's explicit approval and the state.
fn approving(arguments: &Value, state: &str) -> Value {
    json!({
        "arguments": arguments,
        "inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}},
        "requestState": state,
    })
}

/// A complete result's text and whether it is an error.
fn text(result: &Value) -> (String, bool) {
    assert_eq!(result["resultType"], "complete", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_owned(), result["isError"] == json!(true))
}

fn assert_withheld(result: &Value, what: &str) {
    let (text, is_error) = text(result);
    assert!(is_error && text.starts_with(WITHHELD), "{what}: {text}");
}

/// The proposal a `requestState` names. The state is sealed, not secret: rmcp's codec
/// writes `rs1.<base64url of a header and the JSON payload>.<mac>`; the payload names
/// the proposal (`{"proposal":"<id>",...}`).
fn proposal_of(state: &str) -> ProposalId {
    let payload = state.split('.').nth(1).expect("rs1.<payload>.<mac>");
    let bytes = base64url(payload);
    let text = String::from_utf8_lossy(&bytes);
    let id = text
        .split("\"proposal\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no proposal in the state's payload {text:?}"));
    ProposalId::parse(id).expect("a proposal id")
}

/// Decodes unpadded base64url.
fn base64url(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for byte in text.bytes() {
        let value = ALPHABET
            .iter()
            .position(|&letter| letter == byte)
            .expect("a base64url letter") as u32;
        bits = (bits << 6) | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_asked_on_one_replica_is_approved_on_the_other_and_runs_once() {
    let Some(deployment) = Deployment::new("scale_out_approve") else {
        return;
    };
    let (first, second) = (deployment.replica().await, deployment.replica().await);
    let arguments = json!({"id": 3});

    let state = ask(first.addr, "archive", arguments.clone()).await;
    let ran = call(second.addr, "archive", approving(&arguments, &state)).await;
    assert_eq!(text(&ran), ("archived item 3".to_owned(), false));
    for (replica, name) in [(&first, "the first"), (&second, "the second")] {
        let replayed = call(replica.addr, "archive", approving(&arguments, &state)).await;
        assert_withheld(&replayed, &format!("the retry replayed on {name} replica"));
    }
    assert_eq!(
        deployment.changes(),
        ["archive 3"],
        "one run across the replicas"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sixteen_concurrent_approvers_across_both_replicas_run_the_call_once() {
    let Some(deployment) = Deployment::new("scale_out_storm") else {
        return;
    };
    let replicas = [deployment.replica().await, deployment.replica().await];
    let arguments = json!({"id": 2});
    let state = ask(replicas[0].addr, "archive", arguments.clone()).await;

    let retries = (0..16).map(|n| {
        let addr = replicas[n % 2].addr;
        let params = approving(&arguments, &state);
        tokio::spawn(async move { call(addr, "archive", params).await })
    });
    let mut ran = 0;
    for answer in futures_util::future::join_all(retries).await {
        let result = answer.expect("the approver finished");
        match text(&result) {
            (text, false) => {
                assert_eq!(text, "archived item 2");
                ran += 1;
            }
            _ => assert_withheld(&result, "a losing approver"),
        }
    }
    assert_eq!(ran, 1, "exactly one approver ran the call");
    assert_eq!(
        deployment.changes(),
        ["archive 2"],
        "one run across the replicas"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_approval_loses_no_proposal_and_runs_nothing_twice() {
    let Some(deployment) = Deployment::new("scale_out_kill") else {
        return;
    };
    let store = PostgresStore::connect(&deployment.store_url).expect("the store opens");
    let mut survivor = deployment.replica().await;
    let mut victim = deployment.replica().await;
    // A spread of kill points, from before the retry is read to after its answer: a
    // small linear congruential sequence, fixed so a failure can be run again.
    let mut seed: u64 = 0x5eed;
    let mut by_outcome = [0usize; 3]; // ran on the victim, ran on the survivor, in doubt
    for round in 1..=12u32 {
        let due = format!("2031-01-{round:02}");
        let change = format!("set_due_date 1 {due}");
        let arguments = json!({"id": 1, "due": due});
        let state = ask(survivor.addr, "set_due_date", arguments.clone()).await;

        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_micros((seed >> 33) % 30_000);
        let victim_addr = victim.addr;
        let params = approving(&arguments, &state);
        let retry = tokio::spawn(async move {
            // The answer is lost when the victim dies first: that is the point.
            let _ = tokio::time::timeout(
                Duration::from_secs(20),
                post(victim_addr, "set_due_date", params),
            )
            .await;
        });
        tokio::time::sleep(delay).await;
        victim.process.start_kill().expect("SIGKILL is sent");
        let _ = victim.process.wait().await;
        retry.abort();

        // The other replica sees the proposal the victim may or may not have resolved.
        let on_survivor = call(survivor.addr, "set_due_date", approving(&arguments, &state)).await;
        let ran_on_survivor = !text(&on_survivor).1;
        let stored = store
            .get(&proposal_of(&state))
            .expect("the store answers")
            .expect("the proposal is never lost");
        assert!(
            stored.resolution.is_some() && stored.effect.is_some(),
            "round {round}: approved once, its effect on record: {stored:?}"
        );
        let runs = deployment
            .changes()
            .iter()
            .filter(|line| **line == change)
            .count();
        if ran_on_survivor {
            assert_eq!(runs, 1, "round {round}: the survivor's run is the only one");
            by_outcome[1] += 1;
        } else {
            assert_withheld(&on_survivor, "the victim had resolved it");
            assert!(runs <= 1, "round {round}: ran {runs} times");
            by_outcome[if runs == 1 { 0 } else { 2 }] += 1;
        }

        // A restarted replica over the same store runs nothing for the replayed retry.
        victim = deployment.replica().await;
        let replayed = call(victim.addr, "set_due_date", approving(&arguments, &state)).await;
        assert_withheld(&replayed, "replayed after the restart");
        let after = deployment.changes();
        assert_eq!(
            after.iter().filter(|line| **line == change).count(),
            runs,
            "round {round}: the replay ran nothing"
        );
        std::mem::swap(&mut survivor, &mut victim);
    }
    eprintln!(
        "12 kills: ran on the killed replica before it died {}, on the other replica {}, \
         resolved and never run (in doubt) {}",
        by_outcome[0], by_outcome[1], by_outcome[2]
    );
}
