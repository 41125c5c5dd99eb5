//! The two conversation styles for a call awaiting approval, on the [`Report`] of its
//! batch.
//!
//! - **Pause**: answer nothing for the pending call. Hold the batch's results (OpenAI and
//!   Anthropic want every call of an assistant turn answered before the next request), and
//!   once the proposal is resolved send [`Report::results_with_late`]: each pending call
//!   answered by its real late result under its own call id, through the format's
//!   `results` writer.
//! - **Continue**: send [`Report::results`] now (the pending call is answered "awaiting
//!   approval") and let the conversation go on; when the proposal is resolved, send the
//!   late result as a follow-up the model reads: the format's `follow_up` writer
//!   (`consumer::openai_chat::follow_up` and its siblings).
//!
//! MCP has no follow-up: a server cannot add to the client's conversation; there a
//! withheld call is asked by elicitation, or answered as withheld.
//!
//! The late result is what approving and applying gives (`report.results()` of the
//! one-call plan) or what [`Approvals::decline`](crate::Approvals::decline) returns.

use crate::output::ToolReply;
use crate::report::Report;

impl Report {
    /// The results of the calls that have their answer now, in order, leaving out each
    /// call awaiting approval: what the pause style has to send so far.
    pub fn settled_results(&self) -> Vec<ToolReply> {
        self.results()
            .into_iter()
            .zip(self.entries())
            .filter(|(_, entry)| entry.outcome.is_some())
            .map(|(result, _)| result)
            .collect()
    }

    /// Every call's result, in order, each call that was awaiting approval answered by its
    /// late result in `late` (matched by call id): what the pause style sends once the
    /// proposals are resolved. A pending call with no late result yet is answered
    /// "awaiting approval", so no call is ever left unanswered.
    pub fn results_with_late(&self, late: &[ToolReply]) -> Vec<ToolReply> {
        self.results()
            .into_iter()
            .zip(self.entries())
            .map(|(result, entry)| match entry.outcome {
                Some(_) => result,
                None => late
                    .iter()
                    .find(|late| late.call_id == entry.call.id)
                    .cloned()
                    .unwrap_or(result),
            })
            .collect()
    }
}
