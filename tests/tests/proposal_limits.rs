//! The proposal store is bounded, and expiry frees what a proposal held, as an attacker
//! flooding the server would find: in every store (memory, SQLite, PostgreSQL when the
//! throwaway server of `scripts/postgres` runs), a proposal beyond its owner's share or
//! everyone's is refused before it is stored, saying so; an expired proposal is ended (the
//! run waiting on it told once) and removed; and over loopback HTTP, 200 withheld calls of
//! 1 MiB from a 2026-07-28 client leave the server holding a bounded share, each call
//! beyond it answered, not stored.

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use toolset::prelude::*;
use toolset::run::Run;
use toolset::store::{ProposalLimits, Store, Tally};
use toolset::{Approvals, Autonomy, MemoryStore, Proposal, SqliteStore, ToolCall};
use toolset_tests::ledger::LedgerTools;
use toolset_tests::postgres;

/// A proposal of `pay` with a note of `bytes` bytes.
fn proposal(call_id: &str, bytes: usize) -> Proposal {
    let note = "n".repeat(bytes);
    let call = ToolCall::new(call_id, "pay", json!({ "note": note }).to_string());
    let plan = LedgerTools::gate([call], Autonomy::ExternalReversible).expect("valid");
    plan.proposals()[0].clone()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

/// Three proposals of 1 KiB per owner, five in all.
const SMALL: ProposalLimits = ProposalLimits {
    per_owner: Tally::new(3, 1 << 20),
    overall: Tally::new(5, 1 << 20),
};

/// Owners' shares and the overall limit hold in `store`, the refusal says which, and
/// nothing refused is stored.
fn limits_hold<S: Store>(store: &S) {
    let approvals = Approvals::new(store).limited_to(SMALL);
    for index in 0..3 {
        approvals
            .submit_for("ann", &proposal(&format!("a{index}"), 10))
            .expect("within ann's share");
    }
    let refused = approvals
        .submit_for("ann", &proposal("a3", 10))
        .expect_err("ann's share is full");
    assert!(refused.is_full(), "{refused}");
    let message = refused.to_string();
    assert!(
        message.contains("those of ann") && message.contains("limit is 3 proposals"),
        "{message}"
    );
    let usage = store.usage("ann", now_ms()).expect("counts");
    assert_eq!(usage.owner.proposals, 3, "the refused one is not stored");
    for index in 0..2 {
        approvals
            .submit_for("bob", &proposal(&format!("b{index}"), 10))
            .expect("within bob's share and the overall limit");
    }
    let refused = approvals
        .submit_for("cy", &proposal("c0", 10))
        .expect_err("the overall limit is reached");
    assert!(
        refused.is_full() && refused.to_string().contains("all owners' together"),
        "{refused}"
    );
    // A byte limit refuses a proposal too large for the share, however few wait.
    let bytes = Approvals::new(store).limited_to(ProposalLimits {
        per_owner: Tally::new(100, 4096),
        overall: Tally::new(100, 1 << 30),
    });
    let refused = bytes
        .submit_for("dan", &proposal("d0", 8192))
        .expect_err("over dan's bytes");
    assert!(refused.is_full(), "{refused}");
    bytes
        .submit_for("dan", &proposal("d1", 100))
        .expect("a small one fits");
}

/// An expired proposal is ended as a decline with the expiry as its answer, removed with
/// what it held, and counts no more; the run waiting on it gathers the answer once; a
/// declined one is removed once expired; an approved one is never touched.
fn expiry_frees<S: Store>(store: &S) {
    let approvals = Approvals::new(store)
        .limited_to(SMALL)
        .expiring_after(Duration::from_millis(300));
    let waiting = proposal("w", 100_000);
    let declined = proposal("d", 100_000);
    let approved = proposal("a", 10);
    for proposal in [&waiting, &declined, &approved] {
        approvals.submit_for("eve", proposal).expect("stored");
    }
    let mut run = Run::new();
    run.await_approval(&waiting);
    approvals
        .decline(&declined.reviewed(), "no")
        .expect("declined");
    let policy = LedgerTools::policy(Autonomy::ReadOnly);
    let _approved = approvals
        .approve(
            &approved.reviewed(),
            &toolset::request::Request::new(&policy),
        )
        .expect("approved");
    let before = store.usage("eve", now_ms()).expect("counts");
    assert_eq!(before.owner.proposals, 2, "waiting and declined count");
    assert!(before.owner.bytes > 200_000, "{before:?}");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(approvals.sweep().expect("sweeps"), 2);
    for gone in [&waiting, &declined] {
        assert_eq!(store.get(gone.id()).expect("reads"), None, "removed");
        let entry = store
            .entry(gone.id().as_str())
            .expect("reads")
            .expect("its decline stays in the journal");
        assert!(entry.is_declined());
        assert!(
            entry.call.arguments.to_string().len() < 10,
            "its arguments are gone: {} bytes",
            entry.call.arguments.to_string().len()
        );
    }
    assert!(store.get(approved.id()).expect("reads").is_some());
    assert_eq!(
        store.usage("eve", now_ms()).expect("counts").owner,
        Tally::default()
    );
    assert!(store.expired(u64::MAX).expect("lists").is_empty());
    // The run waiting on the swept proposal is answered once, with the expiry.
    assert_eq!(run.collect(store).expect("gathers"), 1);
    let late = run.late_results();
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].call_id, "w");
    assert!(
        late[0]
            .output
            .text_content()
            .contains("Not approved in time")
    );
    run.delivered(store).expect("marks");
    assert_eq!(run.collect(store).expect("gathers"), 0);
    assert!(run.pending().is_empty());
    // Approving the swept proposal finds nothing to run.
    assert!(
        approvals
            .approve(
                &waiting.reviewed(),
                &toolset::request::Request::new(&policy)
            )
            .is_err()
    );
}

/// Submissions in flight together (32 threads, as a client's concurrent calls reach a
/// server) are counted one at a time: the share holds, none slips past on a stale count.
fn concurrent_submissions_keep_the_share<S: Store>(store: &S) {
    let limits = ProposalLimits {
        per_owner: Tally::new(1_000, 4 << 20),
        overall: Tally::new(1_000, 1 << 30),
    };
    let approvals = Approvals::new(store).limited_to(limits);
    let barrier = std::sync::Barrier::new(32);
    let stored: usize = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..32)
            .map(|index| {
                let (approvals, barrier) = (&approvals, &barrier);
                scope.spawn(move || {
                    let proposal = proposal(&format!("t{index}"), 1 << 20);
                    barrier.wait();
                    approvals.submit_for("flooder", &proposal).is_ok()
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| usize::from(thread.join().expect("no panic")))
            .sum()
    });
    let usage = store.usage("flooder", now_ms()).expect("counts");
    assert_eq!(usage.owner.proposals, stored as u64);
    assert!(
        stored >= 1 && usage.owner.bytes <= 4 << 20,
        "{stored} stored, {usage:?}"
    );
}

#[test]
fn concurrent_submissions_keep_the_share_in_memory_and_sqlite() {
    concurrent_submissions_keep_the_share(&MemoryStore::new());
    concurrent_submissions_keep_the_share(&sqlite("concurrent"));
}

#[test]
fn memory_store_limits_and_expiry() {
    limits_hold(&MemoryStore::new());
    expiry_frees(&MemoryStore::new());
}

fn sqlite(name: &str) -> SqliteStore {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "proposal-limits-{name}-{}.sqlite",
        std::process::id()
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    SqliteStore::open(&path).expect("opens")
}

#[test]
fn sqlite_store_limits_and_expiry() {
    limits_hold(&sqlite("limits"));
    expiry_frees(&sqlite("expiry"));
}

#[test]
fn postgres_store_limits_and_expiry() {
    let Some(url) = postgres::url("postgres_store_limits_and_expiry") else {
        return;
    };
    let limits = postgres::fresh_database(&url, "limits");
    limits_hold(&toolset::PostgresStore::connect(&limits).expect("connects"));
    let expiry = postgres::fresh_database(&url, "expiry");
    expiry_frees(&toolset::PostgresStore::connect(&expiry).expect("connects"));
}

/// The flood, over loopback HTTP as a 2026-07-28 client sends it.
#[cfg(feature = "mcp-client")]
mod flood {
    use super::*;
    use rmcp::ClientHandler;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, ClientConfig, JsonObject, ProtocolVersion,
    };
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use toolset::mcp::{HttpConfig, McpServer};
    use toolset::{DynamicTool, SealKey, Tier, ToolContext};

    /// The host's own state.
    #[derive(Default)]
    pub struct Outbox;

    /// Count nothing.
    #[toolset::tool(tier = "read_only")]
    pub async fn count(_outbox: &Outbox) -> String {
        "0".to_owned()
    }

    toolset::toolset! { pub OutboxTools<Outbox> = [count]; }

    /// A client that can be asked by form.
    #[derive(Clone)]
    struct Client;

    impl ClientHandler for Client {
        fn get_info(&self) -> ClientConfig {
            serde_json::from_value(json!({
                "protocolVersion": "2026-07-28",
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "flood", "version": "0.1.0"},
            }))
            .expect("a client config")
        }
    }

    /// The resident memory of this process, in bytes.
    fn resident() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
        let line = status
            .lines()
            .find(|line| line.starts_with("VmRSS:"))
            .expect("VmRSS");
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|kib| kib.parse().ok())
            .expect("a number of KiB");
        kib * 1024
    }

    /// 200 calls of 1 MiB to a tool that needs a human, against a server over `store`:
    /// the first few are asked (`input_required`), every later one is answered that too
    /// many wait, and the store holds no more than the default share. (That expiry frees
    /// the share is `expiry_frees`, through the same `Approvals::submit_for`.)
    async fn flood<S: Store + 'static>(store: Arc<S>) -> u64 {
        // One flood at a time: the memory measured is the whole process's.
        static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        let _alone = ONE_AT_A_TIME.lock().await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        let outbox = DynamicTool::new("send", Tier::Irreversible, "Send a message.")
            .input_schema(json!({
                "type": "object",
                "properties": {"body": {"type": "string"}},
                "required": ["body"],
            }))
            .handler(|_args: Value, _ctx: &ToolContext| async { "sent".to_owned() });
        let toolbox = OutboxTools::toolbox().with(outbox).expect("registers");
        let server = McpServer::<OutboxTools>::new(Outbox)
            .with_toolbox(toolbox)
            .with_autonomy(Autonomy::ReadOnly)
            .with_approval_timeout(Duration::from_secs(600))
            .with_proposal_store(Arc::clone(&store), SealKey::new([4; 32]).expect("a key"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(server.serve_http(
            listener,
            HttpConfig::new().with_shutdown(async {
                let _ = stopped.await;
            }),
        ));
        let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = Client
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("connects over HTTP");
        let body = "x".repeat(1 << 20);
        let call = |index: usize| {
            let mut arguments = JsonObject::new();
            arguments.insert("body".to_owned(), json!(format!("{index}{body}")));
            CallToolRequestParams::new("send").with_arguments(arguments)
        };
        let before = resident();
        let (mut asked, mut refused) = (0, 0);
        for index in 0..200 {
            let response =
                tokio::time::timeout(Duration::from_secs(30), client.call_tool_once(call(index)))
                    .await
                    .expect("every call is answered in time")
                    .expect("every call is answered at the protocol level");
            match response {
                CallToolResponse::InputRequired(_) => asked += 1,
                CallToolResponse::Complete(result) => {
                    assert_eq!(result.is_error, Some(true));
                    let text = toolset_tests::mcp_result::text(&result);
                    assert!(
                        text.starts_with("Not run: this call needs the user's approval, and too many calls already wait"),
                        "{text}"
                    );
                    refused += 1;
                }
                other => panic!("unexpected answer {other:?}"),
            }
        }
        let grown = resident().saturating_sub(before);
        let limits = ProposalLimits::default();
        // 1 MiB each: no more than the share's bytes hold.
        assert!(
            asked >= 1 && asked <= limits.per_owner.bytes >> 20,
            "asked {asked}"
        );
        assert_eq!(asked + refused, 200);
        let usage = store.usage("", now_ms()).expect("counts");
        assert!(
            usage.overall.bytes <= limits.per_owner.bytes,
            "the store holds {} bytes",
            usage.overall.bytes
        );
        assert_eq!(usage.overall.proposals, asked);
        assert_eq!(
            store.expired(u64::MAX).expect("lists").len() as u64,
            asked,
            "only the proposals asked about are stored"
        );
        let _ = client.cancel().await;
        let _ = stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(10), served).await;
        grown
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_flood_of_withheld_calls_leaves_the_memory_store_bounded() {
        let grown = flood(Arc::new(MemoryStore::new())).await;
        // Its share is 16 MiB. Without limits, the store kept every call: 220 MiB.
        assert!(grown < 96 << 20, "the process grew by {} MiB", grown >> 20);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_flood_of_withheld_calls_leaves_the_sqlite_store_bounded() {
        flood(Arc::new(sqlite("flood"))).await;
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_flood_of_withheld_calls_leaves_the_postgres_store_bounded() {
        let Some(url) =
            postgres::url("a_flood_of_withheld_calls_leaves_the_postgres_store_bounded")
        else {
            return;
        };
        let url = postgres::fresh_database(&url, "flood");
        let store = tokio::task::spawn_blocking(move || {
            toolset::PostgresStore::connect(&url).expect("connects")
        })
        .await
        .expect("joins");
        flood(Arc::new(store)).await;
    }
}

/// A proposal stored before the limits (schema without `owner`, `expires_ms`, `bytes`)
/// counts and expires once the store migrates: its columns are read from its JSON.
fn migrated_proposal_counts<S: Store>(store: &S) {
    let usage = store.usage("", now_ms()).expect("counts");
    assert_eq!(usage.owner.proposals, 1);
    assert!(usage.owner.bytes > 1000, "{usage:?}");
    assert_eq!(store.expired(u64::MAX).expect("lists").len(), 1);
}

/// A proposal of 1 KB expiring in a minute, stored through `store`.
fn submit_expiring<S: Store>(store: &S) {
    Approvals::new(store)
        .expiring_after(Duration::from_secs(60))
        .submit(&proposal("old", 1000))
        .expect("stored");
}

#[test]
fn a_sqlite_database_at_version_3_counts_its_proposals() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("proposal-limits-v3-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    submit_expiring(&SqliteStore::open(&path).expect("opens"));
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute_batch(
            "DROP INDEX toolset_proposals_expiry;
             ALTER TABLE toolset_proposals DROP COLUMN owner;
             ALTER TABLE toolset_proposals DROP COLUMN expires_ms;
             ALTER TABLE toolset_proposals DROP COLUMN bytes;
             PRAGMA user_version = 3;",
        )
        .expect("the schema is set back");
    migrated_proposal_counts(&SqliteStore::open(&path).expect("opens and migrates"));
}

#[test]
fn a_postgres_database_at_version_5_counts_its_proposals() {
    let Some(url) = postgres::url("a_postgres_database_at_version_5_counts_its_proposals") else {
        return;
    };
    let url = postgres::fresh_database(&url, "limits_v5");
    submit_expiring(&toolset::PostgresStore::connect(&url).expect("connects"));
    postgres::execute(
        &url,
        "ALTER TABLE toolset_proposals DROP COLUMN owner, DROP COLUMN expires_ms, DROP COLUMN bytes;
         UPDATE toolset_schema_version SET version = 5;",
    );
    migrated_proposal_counts(&toolset::PostgresStore::connect(&url).expect("migrates"));
}
