//! The gate: verifies a model's whole program of calls, then splits it by tier into what
//! may run now and what must be proposed to a human.

use crate::consumer::Format;
use crate::plan::{Authority, Plan, Proposal, Step};
use crate::request::{Request, Route};
use crate::{Policy, ToolCall, ToolName, ToolOutput, ToolResult, ToolSet};
use serde_json::error::Category;
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
                let output = match self.problems.iter().find(|problem| problem.call_id == call.id) {
                    Some(problem) => ToolOutput::error(problem.message.clone()),
                    None => ToolOutput::error(format!(
                        "Not run: {bad} other call(s) in this batch were invalid, so none of the batch ran. \
                         Fix them and send the whole batch again."
                    )),
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

/// Verifies every call of `calls` against the set and `policy`, then splits the program:
/// the gate of the policy's default request, [`Request::new`]`(policy, Format::Mcp)` with
/// nothing activated, injected or in its history (the format only shapes a search's
/// answer). A conversation that defers tools or carries history uses
/// [`Request::gate`] instead, so that the gate permits exactly what its list offers.
///
/// Any bad call rejects the whole program. Otherwise calls whose tier the policy's
/// autonomy allows are approved to run; the rest (and every propose-only tool) become
/// proposals.
pub fn gate<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    policy: &Policy<T>,
) -> Result<Plan<T>, Rejected> {
    Request::new(policy, Format::Mcp).gate(calls)
}

/// The gate proper: `route` decides, per call, which tool it is for (or answers it, for
/// the search tool) from what the request offers; then the arguments are verified and the
/// program split by tier.
pub(crate) fn gate_routed<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    policy: &Policy<T>,
    mut route: impl FnMut(&ToolCall) -> Result<Route<T::Name>, CallProblem>,
) -> Result<Plan<T>, Rejected> {
    let calls: Vec<ToolCall> = calls.into_iter().collect();
    let mut steps = Vec::with_capacity(calls.len());
    let mut proposals = Vec::new();
    let mut problems = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let checked = route(call).and_then(|route| match route {
            Route::Tool(name) => verify_arguments::<T>(call, name)
                .map(|typed| (name, typed))
                .map(Ok),
            Route::Answered(output) => Ok(Err(output)),
        });
        match checked {
            // Once the program is rejected, the rest is only checked, not planned.
            Ok(_) if !problems.is_empty() => {}
            Ok(Err(output)) => steps.push(Step::Answered { index, output }),
            Ok(Ok((name, typed))) => {
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
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        Ok(Plan::new(calls, steps, proposals))
    } else {
        Err(Rejected { problems, calls })
    }
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
    verify_arguments::<T>(call, name).map(|typed| (name, typed))
}

/// Checks one call's arguments: they deserialize into the tool's typed call and meet the
/// schema's constraints.
pub(crate) fn verify_arguments<T: ToolSet>(
    call: &ToolCall,
    name: T::Name,
) -> Result<T::Call, CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    // Models send "" (or whitespace) for a tool without arguments.
    let arguments = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        call.arguments.as_str()
    };
    match T::parse(name, arguments) {
        Ok(typed) => match T::spec_of(name).check_constraints(arguments) {
            Ok(()) => Ok(typed),
            Err(violations) => Err(problem(
                ProblemKind::InvalidArguments,
                format!(
                    "Invalid arguments for \"{}\": {}. Check them against the tool's schema and call it again.",
                    call.name,
                    violations.join("; ")
                ),
            )),
        },
        Err(error) => {
            let (kind, message) = match error.classify() {
                Category::Syntax | Category::Eof | Category::Io => (
                    ProblemKind::MalformedJson,
                    format!(
                        "The arguments of \"{}\" are not valid JSON ({error}). Send one JSON object with the tool's arguments.",
                        call.name
                    ),
                ),
                Category::Data => (
                    ProblemKind::InvalidArguments,
                    format!(
                        "Invalid arguments for \"{}\": {}. Check them against the tool's schema and call it again.",
                        call.name,
                        without_position(&error.to_string())
                    ),
                ),
            };
            Err(problem(kind, message))
        }
    }
}

/// serde_json appends " at line 1 column 17", which tells the model nothing useful.
fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    }
}

fn unknown_tool_message<T: ToolSet>(name: &str, policy: &Policy<T>) -> String {
    let available: Vec<&str> = T::Name::ALL
        .iter()
        .filter(|tool| {
            !policy.is_hidden(**tool) && !policy.is_denied(**tool) && !policy.is_deferred(**tool)
        })
        .map(|tool| tool.as_str())
        .collect();
    let closest = available
        .iter()
        .map(|candidate| (strsim_distance(name, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= candidate.len().max(3) / 3)
        .min_by_key(|(distance, _)| *distance);
    let hint = match closest {
        Some((_, candidate)) => format!(" Did you mean \"{candidate}\"?"),
        None => String::new(),
    };
    format!(
        "There is no tool named \"{name}\".{hint} The available tools are: {}.",
        available.join(", ")
    )
}

/// Levenshtein distance, for "did you mean".
pub(crate) fn strsim_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}
