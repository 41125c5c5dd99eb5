//! Checks of a set's declarations that only run time can make: the macros check names,
//! tiers and types at compile time, but whether the schema's constraints can be checked
//! is known only once the validator compiles them.

use crate::ToolSet;
use std::fmt;

/// A tool whose declaration is broken in a way the compiler could not see. The gate
/// refuses every call of such a tool (telling the model it is not its fault); a test
/// calling [`check`] fails on it first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarationProblem {
    /// The tool's name.
    pub tool: &'static str,
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

/// Checks every tool of the set `T` the way its first call would, and lists each whose
/// declaration is broken: today, a schema constraint that cannot be checked (a `pattern`
/// the validator cannot compile, or constraints with the `constraints` feature off).
///
/// Call it from a test of your own, so a broken declaration fails the build's tests
/// rather than refusing the model's calls in production:
///
/// ```
/// use toolset::{tool, toolset, ToolSet};
///
/// /// Look a user up.
/// #[tool(tier = "read_only")]
/// pub async fn find_user(#[schemars(length(max = 64))] login: String) -> String { login }
///
/// toolset! { pub Users<()> = [find_user]; }
///
/// assert_eq!(toolset::check::<Users>(), Ok(()));
/// assert_eq!(Users::check(), Ok(())); // the same, through `ToolSet`
/// ```
pub fn check<T: ToolSet>() -> Result<(), Vec<DeclarationProblem>> {
    let problems: Vec<DeclarationProblem> = T::specs()
        .iter()
        .filter_map(|spec| {
            spec.declaration_problem()
                .map(|message| DeclarationProblem {
                    tool: spec.name(),
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
