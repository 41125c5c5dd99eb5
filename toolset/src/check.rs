//! Checks of a set's declarations that only run time can make: the macros check names,
//! tiers and types at compile time, but whether the schema's constraints can be checked
//! is known only once the validator compiles them, and whether a declared example fits
//! the arguments only once the gate reads it.

use crate::declaration::{DeclarationProblem, problems};
use crate::set::ToolSet;

/// Checks every tool of the set `T` the way its first call would, and lists each whose
/// declaration is broken: a schema constraint that cannot be checked (a `pattern` the
/// validator cannot compile, or constraints with the `constraints` feature off), or an
/// `example` the gate would refuse as a call's arguments (see `#[tool]`'s *Examples*).
///
/// Call it from a test of your own, so a broken declaration fails the build's tests
/// rather than refusing the model's calls in production. (A set that is used without it
/// says so at its first use: a debug build panics naming each broken tool, a release build
/// logs one `tracing::error!`; this function reports without panicking.)
///
/// ```
/// use toolset::{tool, toolset};
/// use toolset::prelude::ToolSet;
///
/// /// Look a user up.
/// #[tool(tier = "read_only")]
/// pub async fn find_user(login: String) -> String { login }
///
/// toolset! { pub Users<()> = [find_user]; }
///
/// assert_eq!(toolset::check_declarations::<Users>(), Ok(()));
/// assert_eq!(Users::check_declarations(), Ok(())); // the same, through `ToolSet`
/// ```
pub fn check_declarations<T: ToolSet>() -> Result<(), Vec<DeclarationProblem>> {
    problems(T::specs())
}
