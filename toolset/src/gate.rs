//! The gate: verifies a model's whole program of calls, then splits it by tier into what
//! may run now and what must be proposed to a human.

use crate::arguments::ArgumentsError;
use crate::plan::{Authority, Plan, Proposal, Step};
use crate::spec::ConstraintFailure;
use crate::{Policy, ToolCall, ToolName, ToolOutput, ToolResult, ToolSet};
use std::fmt;

/// Why one call of a program was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// No tool of that name is offered.
    UnknownTool,
    /// The tool exists, but the policy of this request denies it.
    Denied,
    /// The arguments are not valid JSON.
    MalformedJson,
    /// The arguments are JSON but do not fit the tool's schema.
    InvalidArguments,
    /// The tool's declaration is broken (a constraint of its schema cannot be checked):
    /// no call of it can be verified, so none runs. Not the model's mistake; see
    /// [`crate::check`].
    Misdeclared,
    /// The call has no id, or shares its id with another call of the program: its result
    /// could not be told apart (providers refuse a reply with two results for one id).
    InvalidCallId,
}

/// One rejected call, with a message written for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallProblem {
    /// The id of the rejected call.
    pub call_id: String,
    /// The tool name the model used.
    pub name: String,
    /// What kind of mistake it is.
    pub kind: ProblemKind,
    /// What the model reads: the mistake and how to fix it.
    pub message: String,
}

/// A program the gate refused as a whole: nothing of it runs.
///
/// It carries every problem of every bad call (a call with a bad id and bad arguments has
/// two); [`Rejected::results`] answers every call of the program (the bad ones with their
/// problems, the others with a note that they were not run) so the model can correct the
/// program and send it again.
#[derive(Debug, Clone)]
pub struct Rejected {
    problems: Vec<CallProblem>,
    /// The index of the call each problem is about, parallel to `problems` (ids cannot
    /// say it: they may be empty or repeated).
    problem_calls: Vec<usize>,
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
    ///
    /// One result per distinct call id, in the calls' order: a provider refuses a reply
    /// with two results for one id, so the calls sharing an id share the first one's
    /// result (its problems say which calls share it). Linear in the number of calls.
    pub fn results(&self) -> Vec<ToolResult> {
        // The problems of each call, found in one pass: they are in the calls' order.
        let mut messages: Vec<Vec<&str>> = vec![Vec::new(); self.calls.len()];
        for (problem, &index) in self.problems.iter().zip(&self.problem_calls) {
            if let Some(slot) = messages.get_mut(index) {
                slot.push(&problem.message);
            }
        }
        let bad = messages.iter().filter(|slot| !slot.is_empty()).count();
        let mut answered: std::collections::HashSet<&str> =
            std::collections::HashSet::with_capacity(self.calls.len());
        self.calls
            .iter()
            .zip(&messages)
            .filter(|(call, _)| call.id.is_empty() || answered.insert(call.id.as_str()))
            .map(|(call, problems)| {
                let output = if problems.is_empty() {
                    ToolOutput::error(format!(
                        "Not run: {bad} other call(s) in this batch were invalid, so none of the batch ran. \
                         Fix them and send the whole batch again."
                    ))
                } else {
                    ToolOutput::error(problems.join(" "))
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

/// Verifies every call of `calls` against the set and `policy`, then splits the program.
///
/// Any bad call rejects the whole program. Otherwise calls whose tier the policy's
/// autonomy allows are approved to run; the rest (and every propose-only tool) become
/// proposals.
pub fn gate<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    policy: &Policy<T>,
) -> Result<Plan<T>, Rejected> {
    let calls: Vec<ToolCall> = calls.into_iter().collect();
    let mut steps = Vec::with_capacity(calls.len());
    let mut proposals = Vec::new();
    let mut problems = Vec::new();
    let mut problem_calls = Vec::new();
    let id_problems = id_problems(&calls);
    for (index, call) in calls.iter().enumerate() {
        if let Some(problem) = id_problems.get(index).and_then(Option::as_ref) {
            problems.push(problem.clone());
            problem_calls.push(index);
        }
        match verify::<T>(call, policy) {
            // Once the program is rejected, the rest is only checked, not planned.
            Ok(_) if !problems.is_empty() => {}
            Ok((name, typed)) => {
                let spec = T::spec_of(name);
                if !spec.is_propose_only() && policy.autonomy().allows(spec.tier()) {
                    steps.push(Step::Run {
                        index,
                        name,
                        typed,
                        authority: Authority::Autonomy(policy.autonomy()),
                    });
                } else {
                    steps.push(Step::AwaitApproval { name });
                    proposals.push(Proposal::new::<T>(call, name, &typed));
                }
            }
            Err(problem) => {
                problems.push(problem);
                problem_calls.push(index);
            }
        }
    }
    if problems.is_empty() {
        Ok(Plan::new(calls, steps, proposals))
    } else {
        Err(Rejected {
            problems,
            problem_calls,
            calls,
        })
    }
}

/// The id problem of each call, if it has one: an empty id, or one that other calls of
/// the program use too. Every call sharing an id gets a problem, not just the later ones,
/// so the model renames whichever it likes. `None` for every call when the ids are fine
/// (one hash set insert per call).
fn id_problems(calls: &[ToolCall]) -> Vec<Option<CallProblem>> {
    let mut first_use: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(calls.len());
    let mut shared = false;
    for (index, call) in calls.iter().enumerate() {
        shared |= first_use.insert(call.id.as_str(), index).is_some();
    }
    if !shared && !first_use.contains_key("") {
        return Vec::new();
    }
    // Which calls use each id, in order, for the ids used more than once.
    let mut users: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (index, call) in calls.iter().enumerate() {
        users.entry(call.id.as_str()).or_default().push(index);
    }
    calls
        .iter()
        .map(|call| {
            let message = if call.id.is_empty() {
                "This call has no id. Give every call an id of its own, so its result can be matched to it."
                    .to_owned()
            } else {
                let sharing = users.get(call.id.as_str()).filter(|users| users.len() > 1)?;
                let positions: Vec<String> =
                    sharing.iter().map(|index| (index + 1).to_string()).collect();
                format!(
                    "The call id \"{}\" is used by {} calls of this batch (calls {}). Give every call an id of its own.",
                    call.id,
                    sharing.len(),
                    positions.join(", ")
                )
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

/// Checks one call: known, allowed, and its arguments deserialize into the typed call.
pub(crate) fn verify<T: ToolSet>(
    call: &ToolCall,
    policy: &Policy<T>,
) -> Result<(T::Name, T::Call), CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    let name = match T::Name::from_name(&call.name) {
        Some(name) if !policy.is_hidden(name) => name,
        _ => {
            return Err(problem(
                ProblemKind::UnknownTool,
                unknown_tool_message::<T>(&call.name, policy),
            ));
        }
    };
    if policy.is_denied(name) {
        return Err(problem(
            ProblemKind::Denied,
            format!(
                "The tool \"{}\" is not available in this conversation. Do without it.",
                call.name
            ),
        ));
    }
    let spec = T::spec_of(name);
    let misdeclared = |why: String| {
        problem(
            ProblemKind::Misdeclared,
            format!(
                "The tool \"{}\" cannot be used: its declaration is broken, which is no fault of your call \
                 (for its developer: {why}). Do without it.",
                call.name
            ),
        )
    };
    // A tool whose constraints cannot be checked refuses every call, whatever it says.
    if let Some(why) = spec.declaration_problem() {
        return Err(misdeclared(why));
    }
    let invalid = |problems: Vec<String>| {
        problem(
            ProblemKind::InvalidArguments,
            format!(
                "Invalid arguments for \"{}\": {}. Fix each and call it again.",
                call.name,
                problems.join("; ")
            ),
        )
    };
    // Models send "" (or whitespace) for a tool without arguments.
    let arguments = match call.arguments.trim() {
        "" => "{}",
        text => text,
    };
    match crate::arguments::read::<T>(name, spec, arguments) {
        Ok(typed) => match spec.check_constraints(arguments) {
            Ok(()) => Ok((name, typed)),
            Err(ConstraintFailure::Uncheckable(why)) => Err(misdeclared(why)),
            Err(ConstraintFailure::Violations(violations)) => Err(invalid(violations)),
        },
        Err(ArgumentsError::Malformed(error)) => Err(problem(
            ProblemKind::MalformedJson,
            format!(
                "The arguments of \"{}\" are not valid JSON ({error}). Send one JSON object with the tool's arguments.",
                call.name
            ),
        )),
        Err(ArgumentsError::Invalid(mut problems)) => {
            // Unknown keys refused after serde read the rest: the schema's constraints
            // may be broken too; say everything at once.
            if let Err(ConstraintFailure::Violations(violations)) =
                spec.check_constraints(arguments)
            {
                for violation in violations {
                    if !problems.contains(&violation) {
                        problems.push(violation);
                    }
                }
            }
            Err(invalid(problems))
        }
    }
}

fn unknown_tool_message<T: ToolSet>(name: &str, policy: &Policy<T>) -> String {
    let available: Vec<&str> = T::Name::ALL
        .iter()
        .filter(|tool| !policy.is_hidden(**tool) && !policy.is_denied(**tool))
        .map(|tool| tool.as_str())
        .collect();
    // `closest` gives up on a name longer than the 64-character grammar before computing
    // any distance, so a name of megabytes costs no more than a short one.
    let hint = match crate::arguments::closest(name, &available) {
        Some(candidate) => format!(" Did you mean \"{candidate}\"?"),
        None => String::new(),
    };
    format!(
        "There is no tool named \"{}\".{hint} The available tools are: {}.",
        crate::arguments::shortened(name),
        available.join(", ")
    )
}
