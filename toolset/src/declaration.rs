//! [`DeclarationProblem`] and how one is found in a list of specs: a leaf under the set's
//! trait (`ToolSet::check_declarations`, `set.rs`) and the root's
//! [`check_declarations`](crate::check_declarations) (`check.rs`); and how a set's
//! problems are made loud at its first use (`announce`), for an author who never called
//! either.

use crate::spec::ToolSpec;
use std::fmt;

/// A tool whose declaration is broken, with what to write instead: one the compiler could
/// not see in a `#[tool]` (the gate refuses every call of such a tool, telling the model it
/// is not its fault; a test calling [`check_declarations`](crate::check_declarations)
/// fails on it first), or a runtime tool's that registration refused
/// ([`RegistrationError::problems`](crate::toolbox::RegistrationError::problems)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarationProblem {
    /// The tool's name, as declared (possibly the bad name itself).
    pub tool: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for DeclarationProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool `{}` is misdeclared: {}",
            self.tool, self.message
        )
    }
}

impl std::error::Error for DeclarationProblem {}

/// Each of `specs` whose declaration is broken, with what is wrong.
pub(crate) fn problems(specs: &'static [ToolSpec]) -> Result<(), Vec<DeclarationProblem>> {
    let problems: Vec<DeclarationProblem> = specs
        .iter()
        .filter_map(|spec| {
            spec.declaration_problem()
                .map(|message| DeclarationProblem {
                    tool: spec.name().to_owned(),
                    message,
                })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Makes the broken declarations of the set `set` (its `specs`) loud where its author
/// looks: a panic naming each when `panic` (a debug build's first use of the set), else
/// one `tracing::error!` event. Nothing when every declaration holds. The gate refuses
/// every call of such a tool either way, telling the model it is not its fault; this is
/// for the author, who may never have called `check_declarations`.
pub(crate) fn announce(set: &'static str, specs: &'static [ToolSpec], panic: bool) {
    let Err(problems) = problems(specs) else {
        return;
    };
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let text = format!(
        "the set `{set}` has broken declarations, so the gate refuses every call of these \
         tools: {}. Call `toolset::check_declarations::<{set}>()` in a test to catch this before \
         a run (a debug build panics here, at the set's first use; a release build logs it)",
        problems.join("; ")
    );
    if panic {
        panic!("{text}");
    }
    crate::trace::misdeclared_set(set, &text);
}
