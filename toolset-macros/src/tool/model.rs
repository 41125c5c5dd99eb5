//! The typed model of a checked `#[tool]`: what `valid` builds once every rule holds, and
//! the only thing `expand` reads. Nothing here can be in an error state.

use crate::runtime::Runtime;
use syn::{Attribute, Ident, Path, Type, Visibility};

/// A risk tier, as `tier = "..."` spells it: the runtime's `toolset::Tier` itself,
/// shared through `toolset-rules`.
pub use toolset_rules::Tier;

/// A tool, as declared, every rule checked.
pub struct Tool {
    /// The fn's or struct's identifier: the handler fn and the arguments type share it.
    pub ident: Ident,
    pub vis: Visibility,
    /// The name the model calls the tool by.
    pub name: String,
    pub description: String,
    pub title: Option<String>,
    pub tier: Tier,
    pub timeout_ms: Option<u64>,
    pub deferred: bool,
    /// `late_result`: the result may come after the model's turn.
    pub late_result: bool,
    pub idempotent: bool,
    pub preview: Option<Path>,
    /// The fn from the typed arguments to an `Option<toolset::Escalation>`.
    pub escalate: Option<Path>,
    /// `reads = "private"`: the tool returns the user's private data.
    pub reads_private: bool,
    /// `reads = "untrusted"`: the tool returns content others wrote.
    pub reads_untrusted: bool,
    /// `sends = "outside"`: the tool can move data out of the user's control.
    pub sends_outside: bool,
    /// `example = "..."`, each a JSON object's text as written.
    pub examples: Vec<String>,
    pub kind: Kind,
    /// Where the generated code finds the runtime crate (`crate = "..."`).
    pub runtime: Runtime,
}

/// What the declaration is.
#[allow(clippy::large_enum_variant)] // One per macro call: boxing would buy nothing.
pub enum Kind {
    /// An async fn the set dispatches to.
    Handler(Handler),
    /// An args struct with no handler: calls can only be proposed.
    ProposeOnly,
}

/// An async handler fn, its parameters classified.
pub struct Handler {
    /// The `&S` / `&mut S` parameter, if any.
    pub state: Option<State>,
    /// The parameters in declaration order, as the handler is called.
    pub params: Vec<Param>,
    /// Model-facing arguments, which become the fields of the arguments struct.
    pub args: Vec<Arg>,
    /// Every parameter the model sends (the arguments, or the `#[args]` parameter), in
    /// order: what `toolset!` checks against the set's per-run state.
    pub sent: Vec<SentParam>,
    /// The handler's return type (`()` when omitted).
    pub output: Type,
}

/// The per-run state parameter.
pub struct State {
    pub ty: Type,
    pub mutable: bool,
    /// The parameter's type as written (`&mut S`), where a broken rule is underlined.
    pub written: syn::TypeReference,
}

/// A parameter the model sends, as the user wrote it.
pub struct SentParam {
    /// The parameter's name as written (its pattern).
    pub name: String,
    pub ty: Type,
    /// Marked `#[args]`: the whole arguments object.
    pub whole: bool,
}

/// How each handler parameter is supplied.
pub enum Param {
    State,
    Context,
    /// The field of the arguments struct with this name.
    Arg(Ident),
    /// The whole-object form: the parameter receives the typed arguments object.
    /// Boxed: a `syn::Type` is ten times the other variants (syn 3).
    WholeArgs(Box<Type>),
}

/// A model-facing argument: a field of the generated arguments struct.
pub struct Arg {
    pub ident: Ident,
    pub ty: Type,
    /// Doc comments, `#[serde]` and `#[schemars]` attributes, moved to the field.
    pub attrs: Vec<Attribute>,
    /// `#[mcp_header("Region")]`: the header name its property's `x-mcp-header` gives.
    pub mcp_header: Option<String>,
}

impl Handler {
    /// The typed-arguments type when the whole-object form is used.
    pub fn whole_args(&self) -> Option<&Type> {
        self.params.iter().find_map(|param| match param {
            Param::WholeArgs(ty) => Some(&**ty),
            _ => None,
        })
    }

    /// Whether the handler takes `&ToolContext`.
    pub fn takes_context(&self) -> bool {
        self.params
            .iter()
            .any(|param| matches!(param, Param::Context))
    }

    /// Whether the handler takes model-facing arguments in either form.
    pub fn takes_args(&self) -> bool {
        self.params
            .iter()
            .any(|param| matches!(param, Param::Arg(_) | Param::WholeArgs(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tier_is_found_by_its_spelling() {
        for tier in Tier::ALL {
            assert_eq!(Tier::parse(tier.as_str()), Some(tier));
        }
        assert_eq!(Tier::parse("read-only"), None);
    }

    #[test]
    fn a_tier_variant_is_its_spelling_in_camel_case() {
        for tier in Tier::ALL {
            assert_eq!(crate::case::camel_case(tier.as_str()), tier.variant_name());
        }
    }
}
