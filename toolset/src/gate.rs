//! The gate: verifies a model's whole program of calls. One bad call rejects the program,
//! and [`Rejected`] answers every call of it so the model can fix and resend it.
//!
//! The third stage of the pipeline (call → verify → gate → plan → apply → outcome): it
//! runs [`verify`](crate::verify) on each call and hands the verified program to the plan,
//! which splits it by tier.

use crate::call::ToolCall;
use crate::job::{Job, ToolRef};
use crate::messages;
use crate::output::ToolOutput;
use crate::output::ToolReply;
use crate::set::ToolSet;
use crate::tier::Tier;
use crate::verify::{CallProblem, ProblemKind};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// A program the gate refused as a whole: nothing of it runs.
///
/// It carries every problem of every bad call (a call with a bad id and bad arguments has
/// two); [`Rejected::results`] answers every call id of the program (the bad calls with
/// their problems, the others with a note that they were not run) so the model can
/// correct the program and send it again.
#[derive(Debug, Clone)]
pub struct Rejected {
    problems: Vec<CallProblem>,
    /// The index of the call each problem is about, parallel to `problems` (ids cannot
    /// say it: they may be empty or repeated).
    problem_calls: Vec<usize>,
    calls: Vec<ToolCall>,
}

impl crate::trace::RejectedProgram for Rejected {
    fn rejected_calls(&self) -> &[ToolCall] {
        self.calls()
    }

    fn rejected_problems(&self) -> impl Iterator<Item = crate::trace::RejectedCall<'_>> {
        self.problems()
            .iter()
            .zip(self.problem_calls())
            .map(|(problem, &call)| crate::trace::RejectedCall {
                name: &problem.name,
                call_id: &problem.call_id,
                kind: problem.kind.as_str(),
                call,
            })
    }
}

impl Rejected {
    /// The problems, in the order of the calls.
    pub fn problems(&self) -> &[CallProblem] {
        &self.problems
    }

    /// The index of the call each problem is about, parallel to [`Rejected::problems`].
    pub(crate) fn problem_calls(&self) -> &[usize] {
        &self.problem_calls
    }

    /// Every call of the rejected program.
    pub fn calls(&self) -> &[ToolCall] {
        &self.calls
    }

    /// A tool result for every call of the program, to send back to the model.
    ///
    /// One result per distinct call id, in the calls' order: a provider refuses a reply
    /// with two results for one id, so the calls sharing an id share the first one's
    /// result (its problems say which calls share it). Linear in the number of calls.
    pub fn results(&self) -> Vec<ToolReply> {
        // The problems of each call, in one pass.
        let mut messages: Vec<Vec<&str>> = vec![Vec::new(); self.calls.len()];
        for (problem, &index) in self.problems.iter().zip(&self.problem_calls) {
            if let Some(slot) = messages.get_mut(index) {
                slot.push(&problem.message);
            }
        }
        let bad = messages.iter().filter(|slot| !slot.is_empty()).count();
        let mut answered: HashSet<&str> = HashSet::with_capacity(self.calls.len());
        self.calls
            .iter()
            .zip(&messages)
            .filter(|(call, _)| call.id.is_empty() || answered.insert(call.id.as_str()))
            .map(|(call, problems)| {
                let output = if problems.is_empty() {
                    ToolOutput::error(messages::not_run_batch_invalid(bad))
                } else {
                    ToolOutput::error(problems.join(" "))
                };
                ToolReply::to(call, output)
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

/// Where the request sends one call: to a tool it offers (the set's or a runtime one), or
/// (the search tool) answered at once.
pub(crate) enum Route<T: ToolSet> {
    /// A call to a tool the request offers.
    Tool(ToolRef<T>),
    /// A call to the request's tool search, answered with this output.
    Answered(ToolOutput),
}

/// One call of a verified program.
pub(crate) enum Checked<T: ToolSet> {
    /// A call to a tool, with its arguments verified.
    Call(Job<T>),
    /// A call the request answered itself (a tool search).
    Answered(ToolOutput),
}

/// Verifies every call of `calls`: `route` decides from what the request offers which tool
/// a call is for (or answers it), then its arguments are checked, and `keep` gets each
/// verified call (its index, the call, what was checked) while the program is still
/// good. Any bad call rejects the whole program; every call is still checked, so the
/// model learns all its mistakes at once. The calls of a good program come back in the
/// model's order.
///
/// `keep` builds the caller's own per-call record (the plan's steps) as the calls are
/// checked, so a program costs no vector of checked calls in between.
pub(crate) fn check_program<T: ToolSet>(
    calls: Vec<ToolCall>,
    mut route: impl FnMut(&ToolCall) -> Result<Route<T>, CallProblem>,
    mut keep: impl FnMut(usize, &ToolCall, Checked<T>),
) -> Result<Vec<ToolCall>, Rejected> {
    let mut problems = Vec::new();
    let mut problem_calls = Vec::new();
    let id_problems = id_problems(&calls);
    for (index, call) in calls.iter().enumerate() {
        if let Some(problem) = id_problems.get(index).and_then(Option::as_ref) {
            problems.push(problem.clone());
            problem_calls.push(index);
        }
        match check_routed::<T>(call, &mut route) {
            // Once the program is rejected, the rest is only checked, not kept.
            Ok(_) if !problems.is_empty() => {}
            Ok(checked) => keep(index, call, checked),
            Err(problem) => {
                problems.push(problem);
                problem_calls.push(index);
            }
        }
    }
    if problems.is_empty() {
        Ok(calls)
    } else {
        Err(Rejected {
            problems,
            problem_calls,
            calls,
        })
    }
}

/// Verifies one call of a program: `route` decides which tool it is for (or answers it),
/// then its arguments are checked against that tool. What [`check_program`] does for each
/// call, and all that [`check_one`] does besides the id.
fn check_routed<T: ToolSet>(
    call: &ToolCall,
    route: &mut impl FnMut(&ToolCall) -> Result<Route<T>, CallProblem>,
) -> Result<Checked<T>, CallProblem> {
    route(call).and_then(|route| match route {
        Route::Tool(tool) => tool
            .verify(call)
            .and_then(|job| irreversible_from_code(call, &job).map(|()| job))
            .map(Checked::Call),
        Route::Answered(output) => Ok(Checked::Answered(output)),
    })
}

/// `Err` when `call` comes from the model's code and its tool's escalation makes it
/// irreversible for these arguments: code never makes an irreversible call, whatever the
/// policy lets it call (the tool's declared tier is the policy's to judge, before this;
/// a runtime tool has no escalation).
fn irreversible_from_code<T: ToolSet>(call: &ToolCall, job: &Job<T>) -> Result<(), CallProblem> {
    if !call.is_from_code() {
        return Ok(());
    }
    match job.tier() {
        (Tier::Irreversible, Some(reason)) => Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::NotFromCode,
            message: messages::irreversible_from_code(&call.name, &reason),
        }),
        _ => Ok(()),
    }
}

/// The problems [`check_program`] finds in the one-call program `[call]`, in its order
/// (the id's, then the call's), without splitting it by tier: for a call checked on its
/// own, before the program it belongs to is complete.
pub(crate) fn check_one<T: ToolSet>(
    call: &ToolCall,
    mut route: impl FnMut(&ToolCall) -> Result<Route<T>, CallProblem>,
) -> Result<(), Vec<CallProblem>> {
    let mut problems: Vec<CallProblem> = id_problems(std::slice::from_ref(call))
        .into_iter()
        .flatten()
        .collect();
    if let Err(problem) = check_routed::<T>(call, &mut route) {
        problems.push(problem);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The id problem of each call, if it has one: an empty id, or one that other calls of
/// the program use too. Every call sharing an id gets a problem, not just the later ones,
/// so the model renames whichever it likes. Empty when the ids are fine, which costs one
/// insert per call into a set of borrowed ids (foldhash, randomly seeded: a fraction of
/// SipHash's cost on ids this short), and nothing for a one-call program.
fn id_problems(calls: &[ToolCall]) -> Vec<Option<CallProblem>> {
    let fine = match calls {
        [] => true,
        [call] => !call.id.is_empty(),
        _ => {
            let mut seen = HashSet::with_capacity_and_hasher(
                calls.len(),
                foldhash::fast::RandomState::default(),
            );
            calls
                .iter()
                .all(|call| !call.id.is_empty() && seen.insert(call.id.as_str()))
        }
    };
    if fine {
        return Vec::new();
    }
    // Which calls use each id, in order.
    let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, call) in calls.iter().enumerate() {
        users.entry(call.id.as_str()).or_default().push(index);
    }
    calls
        .iter()
        .map(|call| {
            let message = if call.id.is_empty() {
                messages::call_without_id()
            } else {
                let sharing = users
                    .get(call.id.as_str())
                    .filter(|users| users.len() > 1)?;
                let positions: Vec<usize> = sharing.iter().map(|index| index + 1).collect();
                messages::shared_call_id(&call.id, &positions)
            };
            Some(CallProblem {
                call_id: call.id.clone(),
                name: call.name.clone(),
                kind: ProblemKind::InvalidCallId,
                message,
            })
        })
        .collect()
}
