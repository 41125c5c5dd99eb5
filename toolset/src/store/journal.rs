//! The effect journal: every call that is not read-only is recorded before its handler
//! starts and after it ends, so that a call cut off by a crash is never run again on its
//! own, and a result that was recorded is delivered even if the process died first.
//!
//! A journal entry is keyed by the call's *idempotency key*, stable across retries of the
//! same call:
//!
//! - a call a human approved is keyed by its proposal's id. Its start is the [`Effect`]
//!   the store records when the proposal is approved, in the same atomic step (the store
//!   fills in the call's id, tool, tier and action key from the proposal): approving is
//!   starting, so there is never a second record of the same start;
//! - a call that runs without a proposal (its tier within the request's autonomy) is keyed
//!   by [`auto_key`]: a digest of its call id and its canonical action key
//!   ([`ToolCall::action_key`]), so the same call sent again (same id, same arguments)
//!   has the same key, and is refused instead of run twice. `apply` records its start
//!   (`Store::start`) right before its handler runs.
//!
//! `apply` records every end (`Store::end`): done or failed, with the result the model
//! reads. An entry started and never ended is *in doubt* (`Store::in_doubt`): the handler
//! may or may not have had its effect. It is never run again on its own: the host decides,
//! with the entry's key in hand (hand it to an external API that deduplicates, or look the
//! effect up there): `Store::mark_done`, `Store::mark_failed`, or
//! [`Approvals::rerun`](crate::Approvals::rerun), which checks the call again under the
//! request in force (the approval's checks for a proposal, the gate for the others) and
//! hands back a plan that runs it again under the same key. An ended entry's result waits
//! in `Store::undelivered` until the host marks it delivered, once
//! (`Store::mark_delivered`).
//!
//! A proposal a human declined is on record too, in the same table and the same atomic
//! step as its resolution (`Store::decline`): an entry keyed by the proposal's id that
//! never started ([`Ending::Declined`], no attempts), whose result is the answer the model
//! reads (the human's reason). It waits in `Store::undelivered` like any ended call's, so a
//! run resumed in another process finds it ([`Run::collect`](crate::run::Run::collect)); it
//! is never in doubt, never re-run, and never an [`Effect`] (the proposal's
//! [`Stored::effect`](super::Stored::effect) stays `None`).
//!
//! An approved call handed to the host ([`Approved::Handoff`](crate::approval::Approved::Handoff),
//! a propose-only tool's) has its start on record like any approved call, and no handler
//! to end it: it stays in doubt until the host, having carried it out, marks it done (or
//! failed). Plans applied without a journal (`ToolSetExt::apply`) leave their approved calls
//! in doubt the same way.
//!
//! The journal's methods are [`Store`](super::Store)'s, beside the proposals': an
//! approval's start and its journal entry are one record (the table `toolset_effects` in
//! the database stores), so whatever keeps the one keeps the other.

use super::Effect;
use crate::call::ToolCall;
use crate::digest::hex;
use crate::messages;
use crate::outcome::Outcome;
use crate::output::{ToolOutput, ToolReply};
use crate::tier::Tier;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// The idempotency key of a call that runs without a proposal: `call-` and 32 hex digits
/// of the SHA-256 of its call id and its canonical action key
/// ([`ToolCall::action_key`]; the id's length is hashed first, so no id and key can be
/// mistaken for another). The same call sent again (same id, same arguments, however
/// spelled) has the same key; a proposal's id (32 hex digits alone) is never one.
pub fn auto_key(call: &ToolCall) -> String {
    key_of(None, call)
}

/// The idempotency key of a call that runs without a proposal in the run `scope` (a
/// [`RunId`](super::RunId)'s text): [`auto_key`] with the scope hashed first, length and
/// all. The conversation driver journals its calls under it: a call id a consumer
/// synthesized (Gemini's, when the model gives none) is the same in every conversation
/// that makes the same call, and two runs must never share a key, while the same call sent
/// again within one run keeps its key.
pub fn auto_key_in(scope: &str, call: &ToolCall) -> String {
    key_of(Some(scope), call)
}

/// `call-` and 32 hex digits of the SHA-256 of the scope, if any, the call id and the
/// call's canonical action key, each text preceded by its length.
fn key_of(scope: Option<&str>, call: &ToolCall) -> String {
    let mut hasher = Sha256::new();
    if let Some(scope) = scope {
        // A tag no id length can be: an unscoped key never equals a scoped one.
        hasher.update(u64::MAX.to_be_bytes());
        hasher.update((scope.len() as u64).to_be_bytes());
        hasher.update(scope.as_bytes());
    }
    hasher.update((call.id.len() as u64).to_be_bytes());
    hasher.update(call.id.as_bytes());
    hasher.update(call.action_key());
    let digest = hasher.finalize();
    format!("call-{}", hex(&digest[..16]))
}

/// How a journaled call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// It ran to an output that is not an error (or the host marked it done).
    Done,
    /// It ended any other way: an error, a timeout, a cancellation, a panic (or the host
    /// marked it failed).
    Failed,
    /// It never started: a human declined its proposal. The store records the decline
    /// with the resolution ([`Store::decline`](super::Store::decline)), keyed by the
    /// proposal's id, so that the answer the model reads (the human's reason) waits in
    /// [`Store::undelivered`](super::Store::undelivered) like any result, wherever it was
    /// declined.
    Declined,
}

impl Ending {
    /// `"done"`, `"failed"` or `"declined"`, as the stores spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Done => "done",
            Ending::Failed => "failed",
            Ending::Declined => "declined",
        }
    }

    /// The ending a store spells `text`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Ending> {
        match text {
            "done" => Some(Ending::Done),
            "failed" => Some(Ending::Failed),
            "declined" => Some(Ending::Declined),
            _ => None,
        }
    }
}

/// What `apply` records before the handler of a call without a proposal runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallStart {
    /// The idempotency key ([`auto_key`]).
    pub key: String,
    /// The call as the model made it.
    pub call: ToolCall,
    /// The tool's tier.
    pub tier: Tier,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl CallStart {
    /// The start of `call`, at `tier`, now, under its [`auto_key`].
    pub fn new(call: &ToolCall, tier: Tier, at_ms: u64) -> CallStart {
        CallStart::under(auto_key(call), call, tier, at_ms)
    }

    /// The start of `call`, at `tier`, now, under `key`.
    pub fn under(key: String, call: &ToolCall, tier: Tier, at_ms: u64) -> CallStart {
        CallStart {
            key,
            call: call.clone(),
            tier,
            at_ms,
        }
    }
}

/// How a call ended, as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallEnd {
    /// Done or failed.
    pub ending: Ending,
    /// What the model reads about it: a [`ToolOutput`] serialized as JSON.
    pub result: String,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl CallEnd {
    /// The end of a call whose outcome is `outcome`, at `at_ms`.
    pub fn of(outcome: &Outcome, at_ms: u64) -> CallEnd {
        let ending = if outcome.is_done() || matches!(outcome, Outcome::Skipped { .. }) {
            Ending::Done
        } else {
            Ending::Failed
        };
        CallEnd::with_output(ending, &outcome.to_tool_output(), at_ms)
    }

    /// An end with this output as its result.
    pub fn with_output(ending: Ending, output: &ToolOutput, at_ms: u64) -> CallEnd {
        // A `ToolOutput` is text and JSON values: it always serializes.
        let result = serde_json::to_string(output).unwrap_or_else(|_| "{}".to_owned());
        CallEnd {
            ending,
            result,
            at_ms,
        }
    }

    /// The result as the model reads it; `None` when the stored text is not a
    /// [`ToolOutput`] (the store was written by something else).
    pub fn output(&self) -> Option<ToolOutput> {
        serde_json::from_str(&self.result).ok()
    }
}

/// One call in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JournalEntry {
    /// The idempotency key: a proposal's id, or an [`auto_key`].
    pub key: String,
    /// The call as the model made it.
    pub call: ToolCall,
    /// The tool's tier when it started.
    pub tier: Tier,
    /// When its latest run started (for an approved call first: when it was approved; for
    /// a declined one, when it was declined), in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// How many times it was let start: 1, and one more for each re-run; 0 for a declined
    /// proposal's call, which never started.
    pub attempts: u32,
    /// The host chose to run it again ([`Store::rerun`](super::Store::rerun)), and it has
    /// not started yet.
    pub rerun: bool,
    /// How it ended; `None` while it runs, or when it is in doubt.
    pub end: Option<CallEnd>,
    /// When its result was marked delivered, in milliseconds since the Unix epoch.
    pub delivered_at_ms: Option<u64>,
}

impl JournalEntry {
    /// Started and never ended: its handler may or may not have had its effect. (A call
    /// running right now in another process looks the same: compare `started_at_ms` with
    /// the longest a call runs, or list in doubt at start-up, before any call runs.)
    pub fn in_doubt(&self) -> bool {
        self.end.is_none()
    }

    /// Whether this is the record of a declined proposal: its call never started.
    pub fn is_declined(&self) -> bool {
        self.end
            .as_ref()
            .is_some_and(|end| end.ending == Ending::Declined)
    }

    /// The call's canonical action key ([`ToolCall::action_key`]).
    pub fn action_key(&self) -> Vec<u8> {
        self.call.action_key()
    }

    /// The effect this entry's start is: when it started.
    pub fn effect(&self) -> Effect {
        Effect::started_at(self.started_at_ms)
    }

    /// The reply to send the model for an ended call, under the call's id; `None` while it
    /// has not ended, or when its stored result is unreadable.
    pub fn reply(&self) -> Option<ToolReply> {
        let output = self.end.as_ref()?.output()?;
        Some(ToolReply::to(&self.call, output))
    }

    /// Its [`reply`](Self::reply) given late, in a follow-up, saying how it came to be
    /// late ([`ToolReply::late`]): run again after a crash cut it off when it was let
    /// start more than once; else awaiting approval for a proposal's call (its key a
    /// proposal's id), and cut off before its result was delivered for a call without one.
    pub fn late_reply(&self) -> Option<ToolReply> {
        let late = if self.attempts > 1 {
            messages::Late::RunAgain
        } else if crate::proposal::ProposalId::parse(&self.key).is_some() {
            messages::Late::Approval
        } else {
            messages::Late::CutOff
        };
        let mut reply = self.reply()?;
        reply.late = Some(late);
        Some(reply)
    }
}

/// What [`Store::start`](super::Store::start) did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StartOutcome {
    /// The start is on record: run the handler.
    Started,
    /// The key was started before (and not handed back for a re-run): the call must not
    /// run again.
    AlreadyStarted(Box<JournalEntry>),
}

/// What [`Store::end`](super::Store::end) (or a mark) did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndOutcome {
    /// The end is on record.
    Ended,
    /// The call had already ended (the host marked it, or another process ended it): the
    /// first end stands.
    AlreadyEnded(CallEnd),
    /// No call with this key was started (or it was started before the journal existed).
    Unknown,
}

/// Why a journal operation on a key was refused, in the host's words.
impl fmt::Display for EndOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndOutcome::Ended => f.write_str("the end is on record"),
            EndOutcome::AlreadyEnded(end) => write!(
                f,
                "the call had already ended ({}); the first end stands",
                end.ending.as_str()
            ),
            EndOutcome::Unknown => f.write_str("the journal has no call started under this key"),
        }
    }
}
