//! What became of each call: the outcome `apply` records, and what the model reads about it.
//!
//! The last stage of the pipeline (call → verify → gate → plan → apply → outcome). It
//! imports no other stage: apply fills these types in.

use crate::messages;
use crate::output::ToolOutput;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What became of one approved call. `apply` records one for every call and never stops
/// early.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The handler ran and produced this output.
    Done(ToolOutput),
    /// The handler deliberately did nothing (a business brake, not an error).
    Skipped {
        /// Why.
        reason: String,
    },
    /// The handler failed.
    Failed {
        /// The handler's message.
        message: String,
    },
    /// The handler asked the model to call the tool again, corrected
    /// ([`ToolError::retry`](crate::ToolError::retry)); the model reads the hint as an
    /// error telling it to retry.
    Retry {
        /// What to change, in the handler's words.
        hint: String,
    },
    /// The call was not run: its tier is above what was approved, or a policy denies it.
    Refused {
        /// Why.
        reason: String,
    },
    /// The handler ran past the tool's `timeout_ms`.
    TimedOut {
        /// The limit that was exceeded.
        #[serde(with = "millis")]
        after: Duration,
    },
    /// The call waited for the state longer than the host's limit (the MCP server's
    /// state is shared between sessions), and did not run.
    TimedOutWaiting {
        /// The limit that was exceeded.
        #[serde(with = "millis")]
        after: Duration,
    },
    /// The context was cancelled before or while the call ran (for an MCP call: the
    /// request was cancelled, or its client went away).
    Cancelled,
    /// The handler panicked; the panic was contained.
    Panicked {
        /// The panic message.
        message: String,
    },
}

impl Outcome {
    /// True only for [`Outcome::Done`] with an output that is not an error.
    pub fn is_done(&self) -> bool {
        matches!(self, Outcome::Done(output) if !output.is_error)
    }

    /// Whether the model reads text the tool itself produced: its output, or the words of
    /// its handler's error, retry hint or skip reason. What such a call returned entered
    /// the run, whichever way it ended, and counts as read
    /// ([`Exposure::record`](crate::run::Exposure::record)). A refusal, a time-out, a
    /// cancellation or a panic gives the model only toolset's own words.
    pub fn carries_tool_text(&self) -> bool {
        match self {
            Outcome::Done(_)
            | Outcome::Skipped { .. }
            | Outcome::Failed { .. }
            | Outcome::Retry { .. } => true,
            Outcome::Refused { .. }
            | Outcome::TimedOut { .. }
            | Outcome::TimedOutWaiting { .. }
            | Outcome::Cancelled
            | Outcome::Panicked { .. } => false,
        }
    }

    /// A short name of the variant (`"done"`, `"skipped"`, `"retry"`, …), for logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Done(_) => "done",
            Outcome::Skipped { .. } => "skipped",
            Outcome::Failed { .. } => "failed",
            Outcome::Retry { .. } => "retry",
            Outcome::Refused { .. } => "refused",
            Outcome::TimedOut { .. } => "timed_out",
            Outcome::TimedOutWaiting { .. } => "timed_out_waiting",
            Outcome::Cancelled => "cancelled",
            Outcome::Panicked { .. } => "panicked",
        }
    }

    /// [`to_tool_output`](Self::to_tool_output), taking the outcome: a handler's output
    /// is moved, not cloned (the MCP server answers each call from its own report).
    #[cfg(feature = "mcp")]
    pub(crate) fn into_tool_output(self) -> ToolOutput {
        match self {
            Outcome::Done(output) => output,
            other => other.to_tool_output(),
        }
    }

    /// What the model reads about this outcome.
    pub fn to_tool_output(&self) -> ToolOutput {
        match self {
            Outcome::Done(output) => output.clone(),
            Outcome::Skipped { reason } => ToolOutput::text(messages::skipped(reason)),
            Outcome::Failed { message } => ToolOutput::error(messages::failed(message)),
            Outcome::Retry { hint } => ToolOutput::error(messages::retry(hint)),
            Outcome::Refused { reason } => ToolOutput::error(messages::refused(reason)),
            Outcome::TimedOut { after } => {
                ToolOutput::error(messages::timed_out(after.as_millis()))
            }
            Outcome::TimedOutWaiting { after } => {
                ToolOutput::error(messages::waited_too_long(*after))
            }
            Outcome::Cancelled => ToolOutput::error(messages::CANCELLED),
            // The panic text may hold internals; the model only learns that it crashed.
            Outcome::Panicked { .. } => ToolOutput::error(messages::PANICKED),
        }
    }
}

mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        u64::deserialize(deserializer).map(Duration::from_millis)
    }
}
