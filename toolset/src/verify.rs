//! Checking one call's arguments against the tool the request routed it to: they
//! deserialize into the tool's typed arguments and meet the schema's constraints (a
//! compiled tool), or the tool's JSON Schema accepts them (a runtime tool).
//!
//! The second stage of the pipeline (call → verify → gate → plan → apply → outcome). It
//! knows nothing of policies, programs or tiers: which tool a call is for is the request's
//! to decide (`Request::gate`, `Request::check`); the gate runs this on every call of a
//! program, an approval runs it again on the one call a human reviewed.

use crate::arguments::{self, ArgumentsError};
use crate::call::ToolCall;
use crate::messages;
use crate::set::{ToolName, ToolSet};
use crate::spec::{ConstraintFailure, ToolSpec};
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
    /// The tool's declaration is broken (a constraint of its schema cannot be checked, or
    /// a declared example is not arguments the gate accepts): no call of it can be
    /// trusted, so none runs. Not the model's mistake; see
    /// [`crate::check_declarations`].
    Misdeclared,
    /// The call has no id, or shares its id with another call of the program: its result
    /// could not be told apart (providers refuse a reply with two results for one id).
    InvalidCallId,
    /// The call came from the model's code ([`Caller::Code`](crate::call::Caller::Code)) and
    /// the request does not let code call this tool (see
    /// [`Request::code_execution`](crate::request::Request::code_execution) and
    /// [`Policy::allows_from_code`](crate::Policy::allows_from_code)), or these arguments
    /// make the call irreversible, which code never makes: the model may call it
    /// directly.
    NotFromCode,
}

impl ProblemKind {
    /// The kind's name, as `error.type` and the trace's events record it.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ProblemKind::UnknownTool => "unknown_tool",
            ProblemKind::Denied => "denied",
            ProblemKind::MalformedJson => "malformed_json",
            ProblemKind::InvalidArguments => "invalid_arguments",
            ProblemKind::Misdeclared => "misdeclared",
            ProblemKind::InvalidCallId => "invalid_call_id",
            ProblemKind::NotFromCode => "not_from_code",
        }
    }
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
    // A tool whose constraints cannot be checked, or whose examples the gate refuses,
    // refuses every call, whatever it says.
    if let Some(why) = spec.declaration_problem() {
        return Err(problem(
            ProblemKind::Misdeclared,
            messages::misdeclared(&call.name, &why),
        ));
    }
    let read = match call.arguments.as_value() {
        Some(object) => read_parsed_arguments::<T>(name, spec, object),
        None => read_arguments::<T>(name, spec, &call.arguments.text()),
    };
    match read {
        Ok(typed) => Ok(Verified { name, typed }),
        Err(Refusal::Uncheckable(why)) => Err(problem(
            ProblemKind::Misdeclared,
            messages::misdeclared(&call.name, &why),
        )),
        Err(Refusal::Malformed(error)) => Err(problem(
            ProblemKind::MalformedJson,
            messages::malformed_json(&call.name, &error),
        )),
        Err(Refusal::Invalid(problems)) => Err(problem(
            ProblemKind::InvalidArguments,
            messages::invalid_arguments(&call.name, &problems.join("; ")),
        )),
    }
}

/// Why [`read_arguments`] refused arguments.
pub(crate) enum Refusal {
    /// Not JSON: serde_json's message, without its position.
    Malformed(String),
    /// JSON that does not fit: one message per problem, each starting with its JSON path.
    Invalid(Vec<String>),
    /// The schema's constraints cannot be checked.
    Uncheckable(String),
}

/// The gate's reading of a compiled tool's arguments, its declaration's examples aside:
/// serde into the typed call (every key it would ignore refused), then the schema's
/// constraints. What a call and a declared example (`check_examples`) both pass.
fn read_arguments<T: ToolSet>(
    name: T::Name,
    spec: &ToolSpec,
    arguments: &str,
) -> Result<T::Call, Refusal> {
    // Models send "" (or whitespace) for a tool without arguments. Trimmed here, once:
    // `arguments::read` and the constraint check take the text as it is. Text that starts
    // and ends with an ASCII character other than whitespace (`{…}`, the common case)
    // has nothing to trim.
    let untrimmed =
        |byte: Option<&u8>| byte.is_some_and(|&b| b.is_ascii() && !char::from(b).is_whitespace());
    let bytes = arguments.as_bytes();
    let arguments = if untrimmed(bytes.first()) && untrimmed(bytes.last()) {
        arguments
    } else {
        match arguments.trim() {
            "" => "{}",
            text => text,
        }
    };
    match arguments::read::<T>(name, spec, arguments) {
        Ok(typed) => match spec.check_constraints(arguments) {
            Ok(()) => Ok(typed),
            Err(ConstraintFailure::Uncheckable(why)) => Err(Refusal::Uncheckable(why)),
            Err(ConstraintFailure::Violations(violations)) => Err(Refusal::Invalid(violations)),
        },
        Err(ArgumentsError::Malformed(error)) => Err(Refusal::Malformed(error)),
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
            Err(Refusal::Invalid(problems))
        }
    }
}

/// [`read_arguments`] of arguments a transport already parsed (an object): read from the
/// value, not from text, with the same verdict and messages.
fn read_parsed_arguments<T: ToolSet>(
    name: T::Name,
    spec: &ToolSpec,
    object: &Value,
) -> Result<T::Call, Refusal> {
    let shape = arguments::Shape::of(object);
    match arguments::read_object::<T>(name, object, shape) {
        Some(typed) => match spec.check_parsed_constraints(object, shape.array) {
            Ok(()) => Ok(typed),
            Err(ConstraintFailure::Uncheckable(why)) => Err(Refusal::Uncheckable(why)),
            Err(ConstraintFailure::Violations(violations)) => Err(Refusal::Invalid(violations)),
        },
        // Undecided from the value (a float, or refused): the text decides, and says why,
        // every problem at once, as for text.
        None => read_arguments::<T>(name, spec, &object.to_string()),
    }
}

/// What is wrong with the examples of `spec`, a tool of the set `T`: each is read as the
/// gate reads a call's arguments ([`read_arguments`]), so an example passes exactly when
/// the gate would accept it. `toolset!` gives every spec of its set this check
/// (`ToolSpec::__in_set`); [`ToolSpec::declaration_problem`] asks it once.
pub(crate) fn check_examples<T: ToolSet>(spec: &ToolSpec) -> Option<String> {
    let Some(name) = T::Name::from_name(spec.name()) else {
        return Some(format!(
            "its examples cannot be checked: the set `{}` has no tool named `{}`; build the spec \
             through `toolset!`",
            T::NAME,
            spec.name()
        ));
    };
    let problems: Vec<String> = spec
        .example_texts()
        .iter()
        .enumerate()
        .filter_map(|(index, text)| {
            let why = match read_arguments::<T>(name, spec, text) {
                Ok(_) => return None,
                Err(Refusal::Malformed(error)) => format!("it is not JSON ({error})"),
                Err(Refusal::Invalid(problems)) => problems.join("; "),
                Err(Refusal::Uncheckable(why)) => why,
            };
            Some(format!(
                "its `example` {} (`{}`) is refused by the gate: {why}",
                index + 1,
                text.trim()
            ))
        })
        .collect();
    if problems.is_empty() {
        return None;
    }
    Some(format!(
        "{}. An example shows the model a call to copy, so it must be one the gate accepts: \
         fix it in #[tool(example = ...)] to fit the tool's arguments",
        problems.join("; ")
    ))
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
    let value = arguments_value(call)?;
    checked_runtime_value(call, spec, value)
}

/// The call's arguments as JSON (no arguments: `{}`), or the problem the model is told
/// when they are not JSON this crate can read.
pub(crate) fn arguments_value(call: &ToolCall) -> Result<Value, CallProblem> {
    let problem = |kind, message| CallProblem {
        call_id: call.id.clone(),
        name: call.name.clone(),
        kind,
        message,
    };
    if let Some(object) = call.arguments.as_value() {
        return Ok(object.clone());
    }
    let text = call.arguments.text();
    let text = match text.trim() {
        "" => "{}",
        text => text,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|error| match arguments::unreadable_number(text) {
            Some(unreadable) => problem(
                ProblemKind::InvalidArguments,
                messages::invalid_arguments(&call.name, &unreadable),
            ),
            None => problem(
                ProblemKind::MalformedJson,
                messages::malformed_json(
                    &call.name,
                    &arguments::without_position(&error.to_string()),
                ),
            ),
        })?;
    Ok(value)
}

/// The runtime tool's verdict on arguments that are JSON: `value` itself when it is an
/// object the tool's schema accepts, else every problem at once.
fn checked_runtime_value(
    call: &ToolCall,
    spec: &ToolSpec,
    value: Value,
) -> Result<Value, CallProblem> {
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
        Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::InvalidArguments,
            message: messages::invalid_arguments(&call.name, &problems.join("; ")),
        })
    }
}
