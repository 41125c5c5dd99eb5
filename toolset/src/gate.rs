//! The gate: verifies a model's whole program of calls. One bad call rejects the program,
//! and [`Rejected`] answers every call of it so the model can fix and resend it.
//!
//! The third stage of the pipeline (call → verify → gate → plan → apply → outcome): it
//! runs [`verify`](crate::verify) on each call and hands the verified program to the plan,
//! which splits it by tier.

use crate::verify::{CallProblem, Verified, verify_arguments};
use crate::{ToolCall, ToolOutput, ToolResult, ToolSet, messages};
use std::fmt;

/// A program the gate refused as a whole: nothing of it runs.
///
/// It carries one problem per bad call; [`Rejected::results`] answers every call of the
/// program (the bad ones with their problem, the others with a note that they were not
/// run) so the model can correct the program and send it again.
#[derive(Debug, Clone)]
pub struct Rejected {
    problems: Vec<CallProblem>,
    calls: Vec<ToolCall>,
}

impl Rejected {
    /// The problems, in the order of the calls.
    pub fn problems(&self) -> &[CallProblem] {
        &self.problems
    }

    /// Every call of the rejected program.
    pub fn calls(&self) -> &[ToolCall] {
        &self.calls
    }

    /// A tool result for every call of the program, to send back to the model.
    pub fn results(&self) -> Vec<ToolResult> {
        let bad = self.problems.len();
        self.calls
            .iter()
            .map(|call| {
                let output = match self
                    .problems
                    .iter()
                    .find(|problem| problem.call_id == call.id)
                {
                    Some(problem) => ToolOutput::error(problem.message.clone()),
                    None => ToolOutput::error(messages::not_run_batch_invalid(bad)),
                };
                ToolResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    output,
                }
            })
            .collect()
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the program was rejected: ")?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(
                f,
                "call {} ({}): {}",
                problem.call_id, problem.name, problem.message
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Rejected {}

/// Where the request sends one call: to a tool it offers, or (the search tool) answered
/// at once.
pub(crate) enum Route<N> {
    /// A call to the set's tool, which the request offers.
    Tool(N),
    /// A call to the request's tool search, answered with this output.
    Answered(ToolOutput),
}

/// One call of a verified program.
pub(crate) enum Checked<T: ToolSet> {
    /// A call to a tool, with its typed arguments.
    Verified(Verified<T>),
    /// A call the request answered itself (a tool search).
    Answered(ToolOutput),
}

/// A program every call of which passed verification, in the model's order.
pub(crate) struct Program<T: ToolSet> {
    pub(crate) calls: Vec<ToolCall>,
    /// One per call, at the call's index.
    pub(crate) checked: Vec<Checked<T>>,
}

/// Verifies every call of `calls`: `route` decides from what the request offers which tool
/// a call is for (or answers it), then its arguments are checked. Any bad call rejects the
/// whole program; every call is still checked, so the model learns all its mistakes at once.
pub(crate) fn check_program<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    mut route: impl FnMut(&ToolCall) -> Result<Route<T::Name>, CallProblem>,
) -> Result<Program<T>, Rejected> {
    let calls: Vec<ToolCall> = calls.into_iter().collect();
    let mut checked = Vec::with_capacity(calls.len());
    let mut problems = Vec::new();
    for call in &calls {
        let outcome = route(call).and_then(|route| match route {
            Route::Tool(name) => verify_arguments::<T>(call, name).map(Checked::Verified),
            Route::Answered(output) => Ok(Checked::Answered(output)),
        });
        match outcome {
            // Once the program is rejected, the rest is only checked, not kept.
            Ok(_) if !problems.is_empty() => {}
            Ok(call) => checked.push(call),
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        Ok(Program { calls, checked })
    } else {
        Err(Rejected { problems, calls })
    }
}
