//! What applying a plan reports: a [`Report`] of one [`Entry`] per call of the program,
//! in the model's order, and the replies to send back to the model. A leaf of plain
//! types: `apply.rs` writes a report, the consumers and the conversation read one.

use crate::call::ToolCall;
use crate::messages;
use crate::output::{ToolOutput, ToolReply};
use crate::spec::Labels;
use crate::tier::Tier;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How a late result came to be late: what a follow-up tells the model beside it
/// ([`ToolReply::late`]).
pub use crate::messages::Late;

pub use crate::gate::Rejected;
pub use crate::outcome::Outcome;
pub use crate::verify::{CallProblem, ProblemKind};

/// What happened to one call of the program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The tool's declared tier.
    pub tier: Tier,
    /// The tool's labels (what it reads, whether it sends outside): what
    /// [`Exposure::record`](crate::run::Exposure::record) reads of a call that ran.
    #[serde(default)]
    pub labels: Labels,
    /// Its outcome; `None` when the call was proposed to a human and did not run.
    pub outcome: Option<Outcome>,
    /// How long the call took, from the start of its run to its outcome (a timeout or a
    /// cancellation included); `None` when no handler was started: the call was
    /// proposed, refused, or answered by the gate (a tool search). One clock reading
    /// ends a call and starts the one that runs right after it, so the durations of a
    /// program's calls add up to the time its calls ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// The call's record in the effect journal, when it was applied with one and is not
    /// read-only; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<Journaled>,
}

/// A call's record in the effect journal, as apply left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Journaled {
    /// Its idempotency key: mark its result delivered under it once the model has it
    /// ([`Store::mark_delivered`](crate::store::Store::mark_delivered)).
    pub key: String,
    /// What went wrong with the journal, for the host (never the model): the call's end
    /// could not be recorded (its result is still this entry's outcome; the journal lists
    /// the call in doubt), or its start could not (it did not run).
    pub problem: Option<String>,
}

impl Journaled {
    /// A record under `key`, with `problem` if the journal failed.
    pub(crate) fn new(key: String, problem: Option<String>) -> Self {
        Journaled { key, problem }
    }
}

/// The outcome of every call of an applied plan, in the model's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    entries: Vec<Entry>,
}

impl Report {
    /// The report of these entries, in the model's order (what apply records).
    pub(crate) fn new(entries: Vec<Entry>) -> Report {
        Report { entries }
    }

    /// The entries, to change an outcome before it is recorded (the driver's retry limit).
    pub(crate) fn entries_mut(&mut self) -> &mut [Entry] {
        &mut self.entries
    }

    /// The entries, taken (for the MCP server, which answers its one call from them).
    #[cfg(feature = "mcp")]
    pub(crate) fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// The idempotency keys of the journaled calls whose end is on record: after sending
    /// [`results`](Self::results), mark each delivered.
    pub fn journaled_keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().filter_map(|entry| {
            entry
                .journal
                .as_ref()
                .filter(|journal| journal.problem.is_none())
                .map(|journal| journal.key.as_str())
        })
    }

    /// Every call with what happened to it.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The calls that ran (or were refused at apply time) with their outcomes.
    pub fn outcomes(&self) -> impl Iterator<Item = (&ToolCall, &Outcome)> + '_ {
        self.entries
            .iter()
            .filter_map(|entry| entry.outcome.as_ref().map(|outcome| (&entry.call, outcome)))
    }

    /// A tool result for every call, to send back to the model: each outcome, and a
    /// note for each call still awaiting approval.
    pub fn results(&self) -> Vec<ToolReply> {
        self.entries
            .iter()
            .map(|entry| {
                let output = match &entry.outcome {
                    Some(outcome) => outcome.to_tool_output(),
                    None => ToolOutput::text(messages::AWAITING_APPROVAL),
                };
                ToolReply::to(&entry.call, output)
            })
            .collect()
    }
}
