//! Checking one call: the tool is known and offered, the policy allows it, and its
//! arguments deserialize into the tool's typed arguments and meet the schema's constraints.
//!
//! The second stage of the pipeline (call → verify → gate → plan → apply → outcome). It
//! knows nothing of programs or tiers: the gate runs it on every call of a program, an
//! approval runs it again on the one call a human reviewed.

use crate::policy::Availability;
use crate::{Policy, ToolCall, ToolName, ToolSet, messages};
use serde_json::error::Category;

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
    /// Checks one call on its own: the tool is offered (or deferred) and not denied, and
    /// the arguments deserialize into its typed arguments and meet its schema constraints.
    ///
    /// A call can be checked as soon as its arguments are complete (while the model is
    /// still streaming the rest of its answer), so a mistake can be reported early. The
    /// program is still gated as a whole: a call that passes here runs only through
    /// `Set::gate_with` and `Set::apply`, which check it again with the others.
    ///
    /// ```
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
    let known = T::Name::from_name(&call.name);
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
    // Models send "" (or whitespace) for a tool without arguments.
    let arguments = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        call.arguments.as_str()
    };
    let typed = T::parse(name, arguments).map_err(|error| match error.classify() {
        Category::Syntax | Category::Eof | Category::Io => problem(
            ProblemKind::MalformedJson,
            messages::malformed_json(&call.name, &error),
        ),
        Category::Data => problem(
            ProblemKind::InvalidArguments,
            messages::invalid_arguments(&call.name, without_position(&error.to_string())),
        ),
    })?;
    T::spec_of(name)
        .check_constraints(arguments)
        .map_err(|violations| {
            problem(
                ProblemKind::InvalidArguments,
                messages::invalid_arguments(&call.name, &violations.join("; ")),
            )
        })?;
    Ok(Verified { name, typed })
}

/// serde_json appends " at line 1 column 17", which tells the model nothing useful.
fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    }
}

/// The unknown-tool message: the offered tools (what the rendered list shows), and the
/// closest of them by edit distance when it is near enough to be a typo.
fn unknown_tool_message<T: ToolSet>(name: &str, policy: &Policy<T>) -> String {
    let offered: Vec<&str> = policy.offered().map(ToolName::as_str).collect();
    let closest = offered
        .iter()
        .map(|candidate| (levenshtein(name, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= candidate.len().max(3) / 3)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate);
    messages::unknown_tool(name, closest, &offered)
}

/// Levenshtein distance, for "did you mean".
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("raed_note", "read_note"), 2);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }

    #[test]
    fn the_position_suffix_is_dropped() {
        assert_eq!(
            without_position("missing field `key` at line 1 column 2"),
            "missing field `key`"
        );
        assert_eq!(without_position("no position"), "no position");
    }
}
