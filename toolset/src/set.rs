//! The traits `#[tool]` and `toolset!` implement: one tool, and a set of tools.
//!
//! Users do not implement these by hand; the macros do, and the compile errors they
//! produce when something does not fit say which attribute to write.

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::spec::{ToolMeta, ToolSpec};
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::future::Future;
use std::hash::Hash;

/// How a call reaches the per-run state: shared for read-only tools (so several run at
/// once), exclusive for tools that write.
pub enum Access<'a, S> {
    /// `&S`: enough for a read-only tool.
    Shared(&'a S),
    /// `&mut S`: what a writing tool needs.
    Exclusive(&'a mut S),
}

impl<'a, S> Access<'a, S> {
    /// The state, read-only.
    pub fn shared(self) -> &'a S {
        match self {
            Access::Shared(state) => state,
            Access::Exclusive(state) => state,
        }
    }

    /// The state, writable; `None` when only shared access was granted.
    pub fn exclusive(self) -> Option<&'a mut S> {
        match self {
            Access::Shared(_) => None,
            Access::Exclusive(state) => Some(state),
        }
    }
}

/// One tool, declared with `#[tool]`: its metadata and argument type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not declared with `#[tool]`",
    note = "declare it with `#[toolset::tool(tier = \"...\", description = \"...\")]` on an async fn, or with `propose_only` on an args struct"
)]
pub trait Tool: Sized {
    /// The typed arguments the model's JSON deserializes into.
    type Args: DeserializeOwned + Send + 'static;
    /// The name the model calls the tool by.
    const NAME: &'static str;
    #[doc(hidden)]
    const META: ToolMeta;
    /// The types of the handler's parameters that the model sends, each once, in order,
    /// as a list `(A0, (A1, (.., ())))`: its arguments, or its `#[args]` type (`()` for a
    /// propose-only tool, whose whole arguments struct is sent). `toolset!` checks that
    /// none is the set's per-run state.
    #[doc(hidden)]
    type Sent;

    /// The arguments read from `deserializer`: what `toolset!`'s `deserialize_call` does
    /// for each tool. Through `Args`'s own bound, so an argument type that does not
    /// deserialize is reported once, at the tool's parameter, and not again at the set.
    #[doc(hidden)]
    fn deserialize_args<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Self::Args, D::Error> {
        <Self::Args as serde::Deserialize<'de>>::deserialize(deserializer)
    }

    /// A human-readable preview of what a call with `args` would do, shown with its
    /// proposal. Declared with `#[tool(preview = path)]`.
    fn preview(_args: &Self::Args) -> Option<String> {
        None
    }

    /// The tier a call with `args` needs above the declared one, with the reason its
    /// proposal shows. Declared with `#[tool(escalate = path)]`. The gate takes the higher
    /// of it and the declared tier, so it can only raise: a lower or equal tier is ignored.
    fn escalate(_args: &Self::Args) -> Option<Escalation> {
        None
    }
}

/// A tool's reason to treat one call as riskier than its declared tier: a transfer above a
/// limit, a message to an outside address.
///
/// Returned by a tool's escalation function for its typed arguments, the fn named by
/// `#[tool(tier = "reversible", escalate = path)]`. The gate runs it and
/// takes the higher of this tier and the declared one, so an escalation can only tighten:
/// a lower tier is ignored, never obeyed. The reason is shown with the proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    /// The tier this call needs.
    pub tier: crate::tier::Tier,
    /// Why, in words the human reviewing the proposal reads.
    pub reason: String,
}

impl Escalation {
    /// An escalation of the call to `tier`, because of `reason`.
    pub fn to(tier: crate::tier::Tier, reason: impl Into<String>) -> Self {
        Escalation {
            tier,
            reason: reason.into(),
        }
    }
}

/// A tool that can run with per-run state `S`.
///
/// Tools that take no state run with any `S`.
#[diagnostic::on_unimplemented(
    message = "the tool `{Self}` does not take `{S}`, the state type of this toolset",
    label = "this tool's handler takes another state type (or it is not a `#[tool]`)",
    note = "every tool in `toolset! {{ Name<S> = [...] }}` takes `&S` or `&mut S` of the set's state type `S`, or no state at all",
    note = "if the handler takes the state behind a lock, a pointer or an alias of one (`&RwLock<{S}>`, `&Mutex<{S}>`, `&Arc<{S}>`), take `&{S}` itself (or `&mut {S}` in a tool that writes): toolset already gives reads a shared borrow and writes an exclusive one"
)]
pub trait ToolHandler<S>: Tool {
    /// Runs the handler with typed arguments.
    ///
    /// `#[tool]` writes this for a tool with a handler. A propose-only tool (and the
    /// placeholder `#[tool]` emits beside a declaration's errors) keeps this body, which
    /// fails: the gate never approves such a call to run.
    fn call<'a>(
        state: Access<'a, S>,
        ctx: &'a ToolContext,
        args: Self::Args,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a
    where
        S: 'a,
    {
        let _ = (state, ctx, args);
        std::future::ready(Err(ToolError::failed(
            crate::messages::propose_only_has_no_handler(Self::NAME),
        )))
    }
}

/// The typed name of a tool in a set: an enum `toolset!` generates, one variant per tool,
/// so a misspelled tool name in a policy or a test does not compile.
pub trait ToolName: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// Every tool of the set, in declared order.
    const ALL: &'static [Self];

    /// The name the model calls the tool by.
    fn as_str(self) -> &'static str;

    /// The tool's position in the set's declared order (and in its specs).
    fn index(self) -> usize;

    /// The tool called `name`, if the set has one.
    fn from_name(name: &str) -> Option<Self>;
}

/// A set of tools generated by `toolset!`.
///
/// What a caller does with a set (`gate`, `apply`, `approve`, …) is the provided methods
/// of [`ToolSetExt`](crate::prelude::ToolSetExt), implemented for every set; bring both traits into
/// scope with `use toolset::prelude::*;`.
pub trait ToolSet: Sized + Send + Sync + 'static {
    /// The per-run state handlers take as `&S` / `&mut S` (a runtime tool's too, see
    /// [`DynamicTool::reads_state`](crate::DynamicTool::reads_state)). `'static`, which
    /// every state a set can name already is.
    type State: Send + Sync + 'static;
    /// The typed call enum: one variant per tool, holding its typed arguments.
    type Call: Send;
    /// The typed tool-name enum.
    type Name: ToolName;

    /// The set's name, as written in `toolset!`.
    const NAME: &'static str;

    /// The tools' specs, in declared order.
    fn specs() -> &'static [ToolSpec];

    /// Deserializes the arguments of the tool `name` from `deserializer` into its typed
    /// call. The gate reads through it with wrappers of its own (one that reports the keys
    /// serde would ignore, one that tracks the JSON path of an error).
    fn deserialize_call<'de, D: serde::Deserializer<'de>>(
        name: Self::Name,
        deserializer: D,
    ) -> Result<Self::Call, D::Error>;

    /// Deserializes the JSON `arguments` of the tool `name` into its typed call, with
    /// serde alone: unknown keys of a nested struct or an `#[args]` struct are ignored
    /// here, while the gate refuses them (see [`Rejected`](crate::report::Rejected)).
    fn parse(name: Self::Name, arguments: &str) -> Result<Self::Call, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(arguments);
        let call = Self::deserialize_call(name, &mut deserializer)?;
        deserializer.end()?;
        Ok(call)
    }

    /// Which tool a typed call is for.
    fn name_of(call: &Self::Call) -> Self::Name;

    /// The preview of a call, for tools that declare one.
    fn preview(call: &Self::Call) -> Option<String>;

    /// The tier a tool raises a call to for its arguments, for tools that declare an
    /// escalation. The gate takes the higher of it and the declared tier: it can only
    /// tighten.
    fn escalation(_call: &Self::Call) -> Option<Escalation> {
        None
    }

    /// Runs a typed call's handler.
    fn dispatch<'a>(
        state: Access<'a, Self::State>,
        ctx: &'a ToolContext,
        call: Self::Call,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a;

    #[doc(hidden)]
    /// The set's cache of rendered tool lists (one `static` per set).
    fn render_cache() -> &'static crate::consumer::cache::RenderCache;

    /// The spec of the tool the model calls `name`.
    fn spec(name: &str) -> Option<&'static ToolSpec> {
        Self::Name::from_name(name).map(Self::spec_of)
    }

    /// The spec of the tool `name`, for code generic over sets; callers use
    /// [`spec`](Self::spec) with the name the model calls it by.
    #[doc(hidden)]
    fn spec_of(name: Self::Name) -> &'static ToolSpec {
        &Self::specs()[name.index()]
    }

    /// Every tool whose declaration is broken in a way only run time sees (see
    /// [`crate::check_declarations`]); call it from a test.
    fn check_declarations() -> Result<(), Vec<crate::declaration::DeclarationProblem>> {
        crate::declaration::problems(Self::specs())
    }
}

// What the trace needs of a set to describe a rejected call's span.
impl<T: ToolSet> crate::trace::Described for T {
    fn description(name: &str) -> Option<&'static str> {
        T::Name::from_name(name).map(|name| T::spec_of(name).description())
    }
}
