//! Human approval that holds: one id, one use, sealed, re-checked when it happens.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolset::approval::{ApprovalError, Approved, ProposalId};
use toolset::prelude::*;
use toolset::report::ProblemKind;
use toolset::store::{Decision, Store};
use toolset::{
    Approvals, Autonomy, Escalation, MemoryStore, Proposal, SealKey, SqliteStore, Tier, ToolCall,
    ToolContext, tool, toolset,
};

/// What ran, so a test can count it.
#[derive(Default)]
pub struct Vault {
    deleted: Vec<String>,
    forwarded: Vec<String>,
}

fn outside_the_company(args: &forward) -> Option<Escalation> {
    (!args.to.ends_with("@example.com")).then(|| {
        Escalation::to(
            Tier::Irreversible,
            format!("{} is outside the company", args.to),
        )
    })
}

/// Forward the vault's index to someone; outside the company it cannot be taken back.
#[tool(tier = "reversible", escalate = outside_the_company)]
pub async fn forward(vault: &mut Vault, to: String) {
    vault.forwarded.push(to);
}

/// Delete a file for good.
#[tool(tier = "irreversible")]
pub async fn delete_file(vault: &mut Vault, path: String) {
    vault.deleted.push(path);
}

fn sent(mail: &Mail) -> String {
    format!("To: {}", mail.to)
}

/// Send an email; the host sends it once the user agrees.
#[tool(tier = "irreversible", propose_only, preview = sent)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Mail {
    /// Who gets it.
    pub to: String,
}

toolset! {
    /// The vault's tools.
    pub Vault1<Vault> = [delete_file, Mail, forward];
}

/// Another crate's set that happens to have the same name and tools, with another
/// description: a sandbox twin.
mod twin {
    use super::Vault;
    use toolset::{tool, toolset};

    /// Pretend to delete a file (sandbox).
    #[tool(tier = "irreversible")]
    pub async fn delete_file(_vault: &mut Vault, path: String) -> String {
        path
    }

    toolset! {
        /// The sandbox twin.
        pub Vault1<Vault> = [delete_file];
    }
}

fn propose(arguments: &str) -> Proposal {
    let plan = Vault1::gate(
        [ToolCall::new("call_1", "delete_file", arguments)],
        Autonomy::ExternalReversible,
    )
    .expect("a valid program");
    plan.proposals()[0].clone()
}

fn key() -> SealKey {
    SealKey::new(*b"an example host secret, 32 bytes").expect("32 bytes")
}

async fn run(approved: Approved<'_, Vault1>, vault: &mut Vault) {
    match approved {
        Approved::Run(call) => {
            call.apply(vault, &ToolContext::default()).await;
        }
        Approved::Handoff(_) => {
            panic!("delete_file has a handler")
        }
    }
}

/// A forward outside the company: escalated to irreversible, with its reason.
fn propose_forward() -> Proposal {
    let plan = Vault1::gate(
        [ToolCall::new(
            "call_1",
            "forward",
            r#"{"to":"billing@cy-partners.example"}"#,
        )],
        Autonomy::ExternalReversible,
    )
    .expect("a valid program");
    let proposal = plan.proposals()[0].clone();
    assert_eq!(proposal.tier(), Tier::Irreversible);
    assert_eq!(
        proposal.escalated_because(),
        Some("billing@cy-partners.example is outside the company")
    );
    proposal
}

/// The attacker's handle on the store: a connection of its own to the database file.
fn attacker(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("the database file opens")
}

/// Rewrites the stored proposal `id` with the SQL expression `edit` of its JSON text
/// (`proposal`), as anyone who can write the database could.
fn edit_row(path: &std::path::Path, id: &ProposalId, edit: &str) {
    let changed = attacker(path)
        .execute(
            &format!("UPDATE toolset_proposals SET proposal = {edit} WHERE id = ?1"),
            [id.as_str()],
        )
        .expect("the edit is valid SQL");
    assert_eq!(changed, 1, "the edit `{edit}` reached the row");
}

/// What a reviewer would approve after reading the stored proposal: its id and digest
/// as the store shows them now.
fn approval_as_shown<S: Store>(
    approvals: &Approvals<S>,
    id: &ProposalId,
) -> toolset::approval::Reviewed {
    approvals
        .store()
        .get(id)
        .expect("the store answers")
        .expect("the row is there")
        .proposal
        .reviewed()
}

#[tokio::test]
async fn an_approval_runs_its_call_at_most_once() {
    let approvals = Approvals::new(MemoryStore::new());
    let proposal = propose(r#"{"path":"/old"}"#);
    approvals.submit(&proposal).unwrap();
    let approval = proposal.reviewed();
    let policy = Vault1::policy(Autonomy::Off);
    let mut vault = Vault::default();
    run(
        approvals
            .approve(&approval, &toolset::request::Request::new(&policy))
            .unwrap(),
        &mut vault,
    )
    .await;
    for _ in 0..3 {
        match approvals.approve(&approval, &toolset::request::Request::new(&policy)) {
            Err(ApprovalError::AlreadyResolved(resolution)) => {
                assert_eq!(resolution.decision, Decision::Approved);
                assert!(
                    ApprovalError::AlreadyResolved(resolution)
                        .to_string()
                        .contains("already approved at 20")
                );
            }
            other => panic!("approved twice: {other:?}"),
        }
    }
    assert_eq!(vault.deleted, ["/old"]);
}

#[test]
fn a_declined_proposal_never_runs_and_says_when_it_was_declined() {
    let approvals = Approvals::new(MemoryStore::new());
    let proposal = propose(r#"{"path":"/old"}"#);
    let id = approvals.submit(&proposal).unwrap();
    let result = approvals
        .decline(&approval_as_shown(&approvals, &id), "keep it")
        .unwrap();
    assert_eq!(result.call_id, "call_1");
    assert!(result.output.text_content().contains("keep it"));
    match approvals.approve(
        &proposal.reviewed(),
        &toolset::request::Request::new(&Vault1::policy(Autonomy::Off)),
    ) {
        Err(ApprovalError::AlreadyResolved(resolution)) => {
            assert_eq!(resolution.decision, Decision::Declined)
        }
        other => panic!("a declined proposal was approved: {other:?}"),
    }
}

#[test]
fn sixteen_concurrent_resolvers_sharing_one_sqlite_file_exactly_one_wins() {
    let dir = tempdir("concurrent");
    let path = dir.join("proposals.db");
    let proposal = propose(r#"{"path":"/old"}"#);
    Approvals::new(SqliteStore::open(&path).unwrap())
        .submit(&proposal)
        .unwrap();
    let approval = proposal.reviewed();
    let wins = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(std::sync::Barrier::new(16));
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let (path, approval, wins, barrier) = (
                path.clone(),
                approval.clone(),
                wins.clone(),
                barrier.clone(),
            );
            std::thread::spawn(move || {
                // Each resolver has its own connection, as separate processes would.
                let approvals = Approvals::new(SqliteStore::open(&path).unwrap());
                barrier.wait();
                match approvals.approve(
                    &approval,
                    &toolset::request::Request::new(&Vault1::policy(Autonomy::Off)),
                ) {
                    Ok(Approved::Run(_)) => {
                        wins.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(ApprovalError::AlreadyResolved(_)) => {}
                    other => panic!("unexpected: {:?}", other.err()),
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(wins.load(Ordering::SeqCst), 1);
}

#[test]
fn sixteen_concurrent_resolvers_in_memory_exactly_one_wins() {
    let approvals = Arc::new(Approvals::new(MemoryStore::new()));
    let proposal = propose(r#"{"path":"/old"}"#);
    approvals.submit(&proposal).unwrap();
    let wins = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..16 {
            scope.spawn(|| {
                if approvals
                    .approve(
                        &proposal.reviewed(),
                        &toolset::request::Request::new(&Vault1::policy(Autonomy::Off)),
                    )
                    .is_ok()
                {
                    wins.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    assert_eq!(wins.load(Ordering::SeqCst), 1);
}

#[test]
fn a_hand_written_or_altered_proposal_is_refused_when_sealed() {
    let store = MemoryStore::new();
    let approvals = Approvals::new(store).sealed_with(key());
    let proposal = propose(r#"{"path":"/old"}"#);
    approvals.submit(&proposal).unwrap();

    // Someone with write access to the store rewrites the arguments and the digest.
    let stored = approvals
        .store()
        .get(proposal.id())
        .unwrap()
        .unwrap()
        .proposal;
    let json = serde_json::to_string(&stored).unwrap();
    let altered: Proposal = serde_json::from_str(&json.replace("/old", "/")).unwrap();
    let forged = Approvals::new(MemoryStore::new()).sealed_with(key());
    forged.store().insert(&altered).unwrap();
    assert_eq!(
        forged
            .approve(
                &altered.reviewed(),
                &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
            )
            .err(),
        Some(ApprovalError::Altered)
    );

    // A proposal written by hand (never sealed) with an approval to match.
    let by_hand = propose(r#"{"path":"/etc"}"#);
    forged.store().insert(&by_hand).unwrap();
    assert_eq!(
        forged
            .approve(
                &by_hand.reviewed(),
                &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
            )
            .err(),
        Some(ApprovalError::Forged)
    );

    // The genuine one still approves.
    assert!(
        approvals
            .approve(
                &proposal.reviewed(),
                &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
            )
            .is_ok()
    );
}

#[test]
fn an_altered_proposal_is_refused_even_unsealed() {
    let approvals = Approvals::new(MemoryStore::new());
    let proposal = propose(r#"{"path":"/old"}"#);
    let approval = proposal.reviewed();
    let json = serde_json::to_string(&proposal).unwrap();
    let altered: Proposal = serde_json::from_str(&json.replace("/old", "/")).unwrap();
    approvals.store().insert(&altered).unwrap();
    assert_eq!(
        approvals
            .approve(
                &approval,
                &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
            )
            .err(),
        Some(ApprovalError::ArgumentsChanged)
    );
}

#[test]
fn a_proposal_of_another_set_with_the_same_name_is_refused() {
    let approvals = Approvals::new(MemoryStore::new());
    let plan = twin::Vault1::gate(
        [ToolCall::new("call_1", "delete_file", r#"{"path":"/"}"#)],
        Autonomy::Off,
    )
    .unwrap();
    let sandbox = plan.proposals()[0].clone();
    assert_eq!(sandbox.set(), "Vault1");
    approvals.submit(&sandbox).unwrap();
    assert_eq!(
        approvals
            .approve(
                &sandbox.reviewed(),
                &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
            )
            .err(),
        Some(ApprovalError::SetChanged)
    );
}

#[test]
fn a_tool_denied_after_the_proposal_was_made_is_not_run() {
    let approvals = Approvals::new(MemoryStore::new());
    let proposal = propose(r#"{"path":"/old"}"#);
    approvals.submit(&proposal).unwrap();
    let now = Vault1::policy(Autonomy::Off).deny(Vault1Name::DeleteFile);
    match approvals.approve(&proposal.reviewed(), &toolset::request::Request::new(&now)) {
        Err(ApprovalError::Invalid(problem)) => assert_eq!(problem.kind, ProblemKind::Denied),
        other => panic!("a denied tool was approved: {:?}", other.err()),
    }
    // Refused, not resolved: once the tool is allowed again, the human can still approve.
    assert!(approvals.pending(proposal.id()).is_ok());
}

#[test]
fn the_preview_shown_is_computed_from_the_arguments() {
    let plan = Vault1::gate(
        [ToolCall::new("m", "mail", r#"{"to":"boss@example.com"}"#)],
        Autonomy::ExternalReversible,
    )
    .unwrap();
    let proposal = plan.proposals()[0].clone();
    let json = serde_json::to_string(&proposal).unwrap();
    assert!(!json.contains("To: "), "no preview is stored: {json}");
    let altered: Proposal =
        serde_json::from_str(&json.replace("boss@example.com", "attacker@evil.example")).unwrap();
    assert_eq!(
        altered.preview::<Vault1>().as_deref(),
        Some("To: attacker@evil.example")
    );
    // And approving a propose-only call hands its typed arguments to the host.
    let approvals = Approvals::new(MemoryStore::new());
    approvals.submit(&proposal).unwrap();
    match approvals.approve(
        &proposal.reviewed(),
        &toolset::request::Request::new(&Vault1::policy(Autonomy::Off)),
    ) {
        Ok(Approved::Handoff(handoff)) => {
            assert_eq!(handoff.args["to"], "boss@example.com", "the JSON arguments");
            match handoff.typed {
                Some(Vault1Call::Mail(mail)) => assert_eq!(mail.to, "boss@example.com"),
                _ => panic!("a tool of the set is handed over typed too"),
            }
        }
        other => panic!("expected a handoff, got {:?}", other.err()),
    }
}

#[test]
fn an_expired_proposal_is_refused() {
    let approvals = Approvals::new(MemoryStore::new()).expiring_after(Duration::from_millis(1));
    let proposal = propose(r#"{"path":"/old"}"#);
    approvals.submit(&proposal).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert!(matches!(
        approvals.approve(
            &proposal.reviewed(),
            &toolset::request::Request::new(&Vault1::policy(Autonomy::Off))
        ),
        Err(ApprovalError::Expired { .. })
    ));
}

#[test]
fn proposal_ids_are_unique_and_unguessable() {
    let ids: std::collections::HashSet<String> = (0..200)
        .map(|_| propose("{\"path\":\"/a\"}").id().to_string())
        .collect();
    assert_eq!(ids.len(), 200);
    assert!(ids.iter().all(|id| id.len() == 32));
    assert_eq!(
        Tier::Irreversible,
        propose("{\"path\":\"/a\"}").tier(),
        "the proposal keeps the declared tier"
    );
}

/// A fresh directory under the target dir for one test's database.
fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("approval-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

/// Every field a reviewer is shown of a stored proposal (the escalation reason and its
/// tier, the call's tool, id and exact argument text, the propose-only flag, the set, the
/// times), rewritten in the database by someone who can write it but does not hold the
/// key: the proposal is not shown as genuine, approving it is refused as altered, and
/// nothing runs.
#[tokio::test]
async fn every_field_a_reviewer_is_shown_is_sealed_and_an_edited_row_never_runs() {
    let dir = tempdir("edited-rows");
    let path = dir.join("proposals.db");
    let approvals = Approvals::new(SqliteStore::open(&path).unwrap())
        .sealed_with(key())
        .expiring_after(Duration::from_secs(3600));
    let policy = Vault1::policy(Autonomy::Off);
    let mut vault = Vault::default();
    let edits = [
        // The reason the human reads for the escalation.
        "json_set(proposal, '$.escalation', 'our auditor; routine')",
        "json_remove(proposal, '$.escalation')",
        // The tier it was escalated to.
        "json_set(proposal, '$.tier', 'reversible')",
        "json_set(proposal, '$.tier', 'external_reversible')",
        // The call: its exact text as shown (same meaning, other characters), its meaning,
        // its id, its tool.
        r#"json_set(proposal, '$.call.arguments', '{"to":"billing@cy-partners.example"} ')"#,
        r#"json_set(proposal, '$.call.arguments', '{"to":"\u0062illing@cy-partners.example"}')"#,
        r#"json_set(proposal, '$.call.arguments', '{"to":"auditor@example.com"}')"#,
        "json_set(proposal, '$.call.id', 'call_2')",
        "json_set(proposal, '$.call.name', 'delete_file')",
        // What approving does (run, or hand to the host), the set, the times.
        "json_set(proposal, '$.propose_only', json('true'))",
        "json_set(proposal, '$.set', 'Vault2')",
        "json_set(proposal, '$.set_fingerprint', '00')",
        "json_set(proposal, '$.created_ms', json_extract(proposal, '$.created_ms') + 1)",
        "json_set(proposal, '$.expires_ms', json_extract(proposal, '$.expires_ms') + 86400000)",
    ];
    for edit in edits {
        let id = approvals.submit(&propose_forward()).unwrap();
        edit_row(&path, &id, edit);
        let shown = approvals.pending(&id);
        assert!(
            shown
                .as_ref()
                .is_err_and(|error| error.to_string().contains("altered")),
            "after `{edit}` the edited proposal is shown as genuine: {shown:?}"
        );
        let approved = approvals.approve(
            &approval_as_shown(&approvals, &id),
            &toolset::request::Request::new(&policy),
        );
        let refused = approved
            .as_ref()
            .err()
            .map(ToString::to_string)
            .unwrap_or_default();
        if let Ok(approved) = approved {
            run(approved, &mut vault).await;
        }
        assert!(
            refused.contains("altered"),
            "after `{edit}` approving was not refused as altered: {refused:?}"
        );
    }
    assert_eq!(vault.forwarded, Vec::<String>::new(), "an edited row ran");
    assert_eq!(vault.deleted, Vec::<String>::new(), "an edited row ran");
}

/// Unsealed, the reason a reviewer reads is still the tool's own for these arguments:
/// a reason rewritten before review is refused at approval.
#[tokio::test]
async fn an_escalation_reason_rewritten_in_an_unsealed_store_is_refused_at_approval() {
    let dir = tempdir("edited-reason");
    let path = dir.join("proposals.db");
    let approvals = Approvals::new(SqliteStore::open(&path).unwrap());
    let id = approvals.submit(&propose_forward()).unwrap();
    edit_row(
        &path,
        &id,
        "json_set(proposal, '$.escalation', 'our auditor; routine')",
    );
    let approved = approvals.approve(
        &approval_as_shown(&approvals, &id),
        &toolset::request::Request::new(&Vault1::policy(Autonomy::Off)),
    );
    let refused = approved
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    let mut vault = Vault::default();
    if let Ok(approved) = approved {
        run(approved, &mut vault).await;
    }
    assert!(
        refused.contains("altered"),
        "not refused as altered: {refused:?}"
    );
    assert_eq!(vault.forwarded, Vec::<String>::new());
}

/// An approved proposal whose resolution is set back to pending in the database (or whose
/// row is deleted and written again as it was when it waited) is never approved, declined
/// or run again: its effect is on record.
#[tokio::test]
async fn a_resolution_reset_to_pending_never_runs_the_call_a_second_time() {
    let dir = tempdir("replayed");
    let path = dir.join("proposals.db");
    let approvals = Approvals::new(SqliteStore::open(&path).unwrap()).sealed_with(key());
    let policy = Vault1::policy(Autonomy::Off);
    let mut vault = Vault::default();
    let proposal = propose(r#"{"path":"/old"}"#);
    let id = approvals.submit(&proposal).unwrap();
    let waiting: String = attacker(&path)
        .query_row(
            "SELECT proposal FROM toolset_proposals WHERE id = ?1",
            [id.as_str()],
            |row| row.get(0),
        )
        .unwrap();
    let approval = proposal.reviewed();
    run(
        approvals
            .approve(&approval, &toolset::request::Request::new(&policy))
            .unwrap(),
        &mut vault,
    )
    .await;
    assert_eq!(vault.deleted, ["/old"]);

    let resets = [
        "UPDATE toolset_proposals SET decision = NULL, resolved_at_ms = NULL WHERE id = ?1",
        "DELETE FROM toolset_proposals WHERE id = ?1",
    ];
    for reset in resets {
        let attacker = attacker(&path);
        attacker.execute(reset, [id.as_str()]).unwrap();
        attacker
            .execute(
                "INSERT OR IGNORE INTO toolset_proposals (id, proposal) VALUES (?1, ?2)",
                [id.as_str(), waiting.as_str()],
            )
            .unwrap();
        assert_eq!(
            approvals
                .store()
                .get(&id)
                .unwrap()
                .map(|stored| stored.resolution),
            Some(None),
            "the store says it waits again"
        );
        let again = approvals.approve(&approval, &toolset::request::Request::new(&policy));
        let refused = again.as_ref().err().map(ToString::to_string);
        if let Ok(again) = again {
            run(again, &mut vault).await;
        }
        assert!(
            refused
                .as_deref()
                .is_some_and(|message| message.contains("already ran")),
            "after `{reset}` the approval was replayed: {refused:?}"
        );
        assert!(
            approvals.pending(&id).is_err(),
            "after `{reset}` it is shown as waiting"
        );
        assert!(
            approvals.decline(&proposal.reviewed(), "too late").is_err(),
            "after `{reset}` a call that ran is recorded as declined"
        );
    }
    assert_eq!(vault.deleted, ["/old"], "the call ran exactly once");
}

/// A database written before effects were recorded gets an effect for every proposal it
/// had approved when it is opened, so those approvals cannot be replayed either.
#[tokio::test]
async fn a_database_from_before_effects_were_recorded_cannot_replay_its_approvals() {
    let dir = tempdir("before-effects");
    let path = dir.join("proposals.db");
    let policy = Vault1::policy(Autonomy::Off);
    let mut vault = Vault::default();
    let proposal = propose(r#"{"path":"/old"}"#);
    let id = {
        let approvals = Approvals::new(SqliteStore::open(&path).unwrap());
        let id = approvals.submit(&proposal).unwrap();
        run(
            approvals
                .approve(
                    &proposal.reviewed(),
                    &toolset::request::Request::new(&policy),
                )
                .unwrap(),
            &mut vault,
        )
        .await;
        id
    };
    // As the database was before: no effects table (nor anything of a later schema).
    attacker(&path)
        .execute_batch(
            "DROP TABLE toolset_effects; DROP TABLE toolset_runs; DROP TABLE toolset_run_marks; PRAGMA user_version = 0;",
        )
        .unwrap();
    let approvals = Approvals::new(SqliteStore::open(&path).unwrap());
    let stored = approvals.store().get(&id).unwrap().unwrap();
    assert!(
        stored.effect.is_some(),
        "the approval's effect is on record"
    );
    attacker(&path)
        .execute(
            "UPDATE toolset_proposals SET decision = NULL, resolved_at_ms = NULL WHERE id = ?1",
            [id.as_str()],
        )
        .unwrap();
    assert!(matches!(
        approvals.approve(
            &proposal.reviewed(),
            &toolset::request::Request::new(&policy)
        ),
        Err(ApprovalError::AlreadyRan(_))
    ));
    assert_eq!(vault.deleted, ["/old"]);
}

/// Runtime tools are approved and declined as the set's are, outside any MCP server: the
/// request in force (its toolbox) is what makes them approvable.
mod runtime {
    use super::*;
    use serde_json::{Value, json};
    use toolset::approval::Reviewed;
    use toolset::request::Request;
    use toolset::{DynamicTool, Toolbox};

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": false
        })
    }

    /// `Vault1` plus a runtime `shred` (irreversible) that counts its runs, and a
    /// propose-only runtime `courier`.
    fn toolbox(runs: Arc<AtomicUsize>) -> Toolbox<Vault1> {
        Vault1::toolbox()
            .with_all([
                DynamicTool::new("shred", Tier::Irreversible, "Shred a file for good.")
                    .input_schema(schema())
                    .handler(move |args: Value, _ctx: &ToolContext| {
                        let runs = Arc::clone(&runs);
                        async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            format!("shredded {}", args["path"].as_str().unwrap_or("?"))
                        }
                    }),
                DynamicTool::new("courier", Tier::Irreversible, "Send a parcel by courier.")
                    .input_schema(schema())
                    .propose_only(),
            ])
            .expect("valid runtime tools")
    }

    /// The proposal of one call to `name` through `toolbox`, at an autonomy that
    /// withholds it, submitted to `approvals`: what the human reviews.
    fn proposed(
        toolbox: &Toolbox<Vault1>,
        approvals: &Approvals<MemoryStore>,
        name: &str,
    ) -> Reviewed {
        let policy = Vault1::policy(Autonomy::ExternalReversible);
        let plan = toolbox
            .request(&policy)
            .expect("no unknown runtime name")
            .gate([ToolCall::new("r1", name, r#"{"path":"/tmp/x"}"#)])
            .expect("a valid program");
        assert_eq!(plan.approved().count(), 0, "irreversible: withheld");
        let proposal = &plan.proposals()[0];
        approvals.submit(proposal).expect("stored");
        proposal.reviewed()
    }

    #[tokio::test]
    async fn a_runtime_tools_proposal_is_approved_and_runs_once_outside_mcp() {
        let runs = Arc::new(AtomicUsize::new(0));
        let toolbox = toolbox(Arc::clone(&runs));
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "shred");
        let policy = Vault1::policy(Autonomy::Off);
        let request = toolbox.request(&policy).expect("no unknown runtime name");
        let Ok(Approved::Run(call)) = approvals.approve(&reviewed, &request) else {
            panic!("the runtime tool's proposal was not approved");
        };
        let report = call
            .apply(&mut Vault::default(), &ToolContext::default())
            .await;
        let outcomes: Vec<_> = report.outcomes().collect();
        assert!(outcomes[0].1.is_done(), "{outcomes:?}");
        assert_eq!(report.results()[0].output.text_content(), "shredded /tmp/x");
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Never twice.
        assert!(matches!(
            approvals.approve(&reviewed, &request),
            Err(ApprovalError::AlreadyResolved(_))
        ));
    }

    #[test]
    fn a_propose_only_runtime_tool_is_handed_to_the_host() {
        let toolbox = toolbox(Arc::default());
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "courier");
        let policy = Vault1::policy(Autonomy::Off);
        match approvals.approve(
            &reviewed,
            &toolbox.request(&policy).expect("no unknown runtime name"),
        ) {
            Ok(Approved::Handoff(handoff)) => {
                assert_eq!(handoff.call.name, "courier");
                assert_eq!(handoff.args, json!({"path": "/tmp/x"}));
                assert!(handoff.typed.is_none(), "a runtime tool has no typed form");
            }
            other => panic!("expected a runtime handoff, got {other:?}"),
        }
    }

    #[test]
    fn a_runtime_tools_proposal_is_declined_and_never_runs() {
        let runs = Arc::new(AtomicUsize::new(0));
        let toolbox = toolbox(Arc::clone(&runs));
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "shred");
        let result = approvals
            .decline(&reviewed, "keep it")
            .expect("declined once");
        assert_eq!(result.call_id, "r1");
        assert!(result.output.is_error() && result.output.text_content().contains("keep it"));
        let policy = Vault1::policy(Autonomy::Off);
        match approvals.approve(
            &reviewed,
            &toolbox.request(&policy).expect("no unknown runtime name"),
        ) {
            Err(ApprovalError::AlreadyResolved(resolution)) => {
                assert_eq!(resolution.decision, Decision::Declined)
            }
            other => panic!("a declined proposal was approved: {other:?}"),
        }
        assert_eq!(runs.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_runtime_tool_gone_from_the_request_in_force_is_refused_and_stays_pending() {
        let runs = Arc::new(AtomicUsize::new(0));
        let toolbox = toolbox(Arc::clone(&runs));
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "shred");
        let policy = Vault1::policy(Autonomy::Off);
        // The request in force now has no such tool: removed from the toolbox, or no
        // toolbox at all.
        let without = toolbox.clone().without("shred");
        for request in [
            without.request(&policy).expect("no unknown runtime name"),
            Request::new(&policy),
        ] {
            match approvals.approve(&reviewed, &request) {
                Err(ApprovalError::Invalid(problem)) => {
                    assert_eq!(problem.kind, ProblemKind::UnknownTool)
                }
                other => panic!("a tool no longer there was approved: {other:?}"),
            }
        }
        assert!(approvals.pending(&reviewed.proposal).is_ok());
        assert_eq!(runs.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_compiled_tool_denied_by_the_request_in_force_is_refused_beside_a_toolbox() {
        let toolbox = toolbox(Arc::default());
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "delete_file");
        let denied = Vault1::policy(Autonomy::Off).deny(Vault1Name::DeleteFile);
        match approvals.approve(
            &reviewed,
            &toolbox.request(&denied).expect("no unknown runtime name"),
        ) {
            Err(ApprovalError::Invalid(problem)) => assert_eq!(problem.kind, ProblemKind::Denied),
            other => panic!("a denied tool was approved: {other:?}"),
        }
        let allowed = Vault1::policy(Autonomy::Off);
        assert!(matches!(
            approvals.approve(
                &reviewed,
                &toolbox.request(&allowed).expect("no unknown runtime name")
            ),
            Ok(Approved::Run(_))
        ));
    }

    #[test]
    fn what_the_human_signed_must_be_what_is_stored_to_decline_too() {
        let toolbox = toolbox(Arc::default());
        let approvals = Approvals::new(MemoryStore::new());
        let mut reviewed = proposed(&toolbox, &approvals, "shred");
        reviewed.digest = "0".repeat(64);
        assert_eq!(
            approvals.decline(&reviewed, "no").err(),
            Some(ApprovalError::ArgumentsChanged)
        );
        assert!(approvals.pending(&reviewed.proposal).is_ok());
    }

    #[test]
    fn a_runtime_tool_the_policy_in_force_denies_or_hides_is_refused_in_host_terms() {
        let runs = Arc::new(AtomicUsize::new(0));
        let toolbox = toolbox(Arc::clone(&runs));
        let approvals = Approvals::new(MemoryStore::new());
        let reviewed = proposed(&toolbox, &approvals, "shred");
        let denied = Vault1::policy(Autonomy::Off).deny("shred");
        let request = toolbox.request(&denied).expect("shred is a runtime tool");
        let error = match approvals.approve(&reviewed, &request) {
            Err(error @ ApprovalError::Invalid(_)) => error,
            other => panic!("a runtime tool denied now was approved: {other:?}"),
        };
        let ApprovalError::Invalid(problem) = &error else {
            unreachable!()
        };
        assert_eq!(problem.kind, ProblemKind::Denied);
        let said = error.to_string();
        assert!(
            said.contains("the policy in force denies the tool `shred`")
                && !said.contains("There is no tool"),
            "{said}"
        );
        let hidden = Vault1::policy(Autonomy::Off).hide("shred");
        let request = toolbox.request(&hidden).expect("shred is a runtime tool");
        match approvals.approve(&reviewed, &request) {
            Err(ApprovalError::Invalid(problem)) => {
                assert_eq!(problem.kind, ProblemKind::UnknownTool)
            }
            other => panic!("a runtime tool hidden now was approved: {other:?}"),
        }
        assert!(
            approvals.pending(&reviewed.proposal).is_ok(),
            "still pending"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0, "never ran");
        // Under a policy that allows it again, it is approved, once.
        let allowed = Vault1::policy(Autonomy::Off);
        let request = toolbox.request(&allowed).expect("no runtime names");
        assert!(matches!(
            approvals.approve(&reviewed, &request),
            Ok(Approved::Run(_))
        ));
    }

    /// Every refusal the host gets speaks to the host: none is the model's "There is no
    /// tool named ..." sentence, and each says what to do.
    #[test]
    fn every_approval_error_speaks_in_host_terms() {
        use toolset::store::{Effect, Resolution};
        // The model's sentence for a name problem; the arguments' description (which the
        // host is shown, as it names the fault) for the others.
        let problem = |kind| toolset::report::CallProblem {
            call_id: "c1".into(),
            name: "shred".into(),
            kind,
            message: match kind {
                ProblemKind::MalformedJson
                | ProblemKind::InvalidArguments
                | ProblemKind::Misdeclared => "/path: expected a string, got 3".into(),
                _ => "There is no tool named \"shred\". Available tools: ...".into(),
            },
        };
        let approvals = Approvals::new(MemoryStore::new());
        let id = proposed(&toolbox(Arc::default()), &approvals, "shred").proposal;
        let mut errors = vec![
            ApprovalError::UnknownProposal(id),
            ApprovalError::AlreadyResolved(Resolution {
                decision: Decision::Declined,
                at_ms: 0,
            }),
            ApprovalError::AlreadyRan(Effect::started_at(0)),
            ApprovalError::Expired { at_ms: 0 },
            ApprovalError::Forged,
            ApprovalError::Altered,
            ApprovalError::OtherSet {
                expected: "Vault1",
                found: "Other".into(),
            },
            ApprovalError::SetChanged,
            ApprovalError::ArgumentsChanged,
            ApprovalError::TierChanged {
                reviewed: Tier::Reversible,
                declared: Tier::Irreversible,
            },
            ApprovalError::ReasonChanged {
                shown: None,
                now: Some("big".into()),
            },
            ApprovalError::Store(toolset::store::StoreError::new("disk full")),
        ];
        for kind in [
            ProblemKind::UnknownTool,
            ProblemKind::Denied,
            ProblemKind::MalformedJson,
            ProblemKind::InvalidArguments,
            ProblemKind::Misdeclared,
            ProblemKind::InvalidCallId,
        ] {
            errors.push(ApprovalError::Invalid(problem(kind)));
        }
        for error in errors {
            let said = error.to_string();
            assert!(
                !said.contains("There is no tool named"),
                "a model-facing sentence reached the host: {said}"
            );
            assert!(!said.is_empty());
        }
        let unknown = ApprovalError::Invalid(problem(ProblemKind::UnknownTool)).to_string();
        assert!(
            unknown.contains("`shred`") && unknown.contains("stays pending"),
            "{unknown}"
        );
    }
}
