//! Checking one call: the tool is known and offered, the policy allows it, and its
//! arguments deserialize into the tool's typed arguments and meet the schema's constraints.
//!
//! The second stage of the pipeline (call → verify → gate → plan → apply → outcome). It
//! knows nothing of programs or tiers: the gate runs it on every call of a program, an
//! approval runs it again on the one call a human reviewed.

use crate::arguments::{self, ArgumentsError};
use crate::policy::Availability;
use crate::spec::ConstraintFailure;
use crate::{Policy, ToolCall, ToolName, ToolSet, ToolSpec, messages};
use serde_json::Value;

/// Why one call was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

/// A call that passed verification: which tool, and its typed arguments.
pub(crate) struct Verified<T: ToolSet> {
    pub(crate) name: T::Name,
    pub(crate) typed: T::Call,
}

impl<T: ToolSet> Policy<T> {
    /// Checks one call on its own against this policy alone: the tool is offered (or
    /// deferred) and not denied, and the arguments deserialize into its typed arguments
    /// and meet its schema constraints.
    ///
    /// A policy knows no request: a deferred tool passes here whether or not a search
    /// activated it, and a runtime tool is unknown here. For the verdict the gate will
    /// give, check the call through the request that gates it:
    /// [`Request::check`](crate::Request::check).
    ///
    /// A call can be checked as soon as its arguments are complete (while the model is
    /// still streaming the rest of its answer), so a mistake can be reported early. The
    /// program is still gated as a whole: a call that passes here runs only through
    /// `Set::gate_with` and `Set::apply`, which check it again with the others.
    ///
    /// ```
    /// use toolset::prelude::*;
    /// use toolset::{tool, toolset, Autonomy, ToolCall};
    ///
    /// /// Look a word up.
    /// #[tool(tier = "read_only")]
    /// pub async fn define(word: String) -> String { word }
    ///
    /// toolset! { pub Words = [define]; }
    ///
    /// let policy = Words::policy(Autonomy::ReadOnly);
    /// assert!(policy.check(&ToolCall::new("1", "define", r#"{"word":"gate"}"#)).is_ok());
    /// assert!(policy.check(&ToolCall::new("2", "define", r#"{"word":7}"#)).is_err());
    /// ```
    pub fn check(&self, call: &ToolCall) -> Result<(), crate::CallProblem> {
        verify::<T>(call, self).map(|_| ())
    }
}

/// Checks one call: known, offered, allowed, and its arguments deserialize into the typed
/// call and meet the schema's constraints.
pub(crate) fn verify<T: ToolSet>(
    call: &ToolCall,
    policy: &Policy<T>,
) -> Result<Verified<T>, CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    // A hidden tool is a name the set does not have (nothing is injected here).
    let known = T::Name::from_name(&call.name).filter(|&tool| !policy.conceals(tool, &[]));
    let name = match known.map(|name| (name, policy.availability(name))) {
        // A request gates by what it offers (`Request::gate`): a deferred tool only once a
        // search activated it. This policy-only check serves approvals, which cannot know
        // the conversation's activations, and `Policy::check`; a deferred tool passes.
        Some((name, Availability::Offered | Availability::Deferred)) => name,
        Some((_, Availability::Denied)) => {
            return Err(problem(ProblemKind::Denied, messages::denied(&call.name)));
        }
        Some((_, Availability::Hidden)) | None => {
            return Err(problem(
                ProblemKind::UnknownTool,
                unknown_tool_message::<T>(&call.name, policy),
            ));
        }
    };
    verify_arguments::<T>(call, name)
}

/// Checks the arguments of a call to `name` (a tool the caller already found offered):
/// they deserialize into the typed call and meet the schema's constraints.
pub(crate) fn verify_arguments<T: ToolSet>(
    call: &ToolCall,
    name: T::Name,
) -> Result<Verified<T>, CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    let spec = T::spec_of(name);
    // A tool whose constraints cannot be checked refuses every call, whatever it says.
    if let Some(why) = spec.declaration_problem() {
        return Err(problem(
            ProblemKind::Misdeclared,
            messages::misdeclared(&call.name, &why),
        ));
    }
    let invalid = |problems: Vec<String>| {
        problem(
            ProblemKind::InvalidArguments,
            messages::invalid_arguments(&call.name, &problems.join("; ")),
        )
    };
    // Models send "" (or whitespace) for a tool without arguments. Trimmed here, once:
    // `arguments::read` and the constraint check take the text as it is.
    let arguments = match call.arguments.trim() {
        "" => "{}",
        text => text,
    };
    match arguments::read::<T>(name, spec, arguments) {
        Ok(typed) => match spec.check_constraints(arguments) {
            Ok(()) => Ok(Verified { name, typed }),
            Err(ConstraintFailure::Uncheckable(why)) => Err(problem(
                ProblemKind::Misdeclared,
                messages::misdeclared(&call.name, &why),
            )),
            Err(ConstraintFailure::Violations(violations)) => Err(invalid(violations)),
        },
        Err(ArgumentsError::Malformed(error)) => Err(problem(
            ProblemKind::MalformedJson,
            messages::malformed_json(&call.name, &error),
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

/// Checks the arguments of a call to a runtime tool (one the request offers), whose
/// arguments stay JSON: they parse, form an object, and the tool's JSON Schema accepts
/// them. The messages are the compiled tools' (the same JSON paths, the same sentences),
/// every problem of the call at once. The verdict is the validator's: the arguments pass
/// exactly when `jsonschema` finds the value valid.
pub(crate) fn verify_runtime_arguments(
    call: &ToolCall,
    spec: &ToolSpec,
) -> Result<Value, CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    // Registration compiled the validator; without one, nothing could check the call.
    if let Some(why) = spec.declaration_problem() {
        return Err(problem(
            ProblemKind::Misdeclared,
            messages::misdeclared(&call.name, &why),
        ));
    }
    let text = match call.arguments.trim() {
        "" => "{}",
        text => text,
    };
    let value: Value = serde_json::from_str(text).map_err(|error| {
        problem(
            ProblemKind::MalformedJson,
            messages::malformed_json(&call.name, &arguments::without_position(&error.to_string())),
        )
    })?;
    let problems: Vec<String> = if value.is_object() {
        spec.schema_problems(&value)
            .into_iter()
            .map(|(_, message)| message)
            .collect()
    } else {
        vec![messages::not_an_object(
            &arguments::pointer(&[]),
            &arguments::got(&value),
        )]
    };
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(problem(
            ProblemKind::InvalidArguments,
            messages::invalid_arguments(&call.name, &problems.join("; ")),
        ))
    }
}

/// The unknown-tool message: the offered tools (what the rendered list shows), and the
/// closest of them when it is near enough to be a typo. A name past the 64-character
/// grammar gets no distance computed, and is echoed cut short.
fn unknown_tool_message<T: ToolSet>(name: &str, policy: &Policy<T>) -> String {
    let offered: Vec<&str> = policy.offered().map(ToolName::as_str).collect();
    let closest = arguments::closest(name, &offered);
    messages::unknown_tool(&arguments::shortened(name), closest, &offered)
}
