//! Items the macros' generated code uses. Not public API: no stability promise.
//!
//! Every path here (`::toolset::__private::X`) is written by `toolset-macros`; renaming one
//! breaks the generated code and the expansion snapshots in `tests/tests/expand/`.

pub use crate::consumer::cache::RenderCache;
use crate::schema::input_schema_for;
pub use crate::spec::ToolMeta;
pub use schemars;
pub use serde;
pub use serde_json;
pub use toolset_names::NameIndex;

use serde_json::Value;

// Every sentence the model reads. Declared here so that the snapshot test
// (`tests/tests/messages.rs`) can show them all without making them public API; the crate
// itself uses it as `crate::messages`.
#[path = "messages.rs"]
pub mod messages;

/// A model-facing argument's JSON must deserialize into its type. The generated
/// arguments struct's `Deserialize` impl is bounded by `T: DeserializeArgument<'de>` for
/// each argument type `T` (`#[serde(bound)]`, spanned at `T`), so serde's derived code
/// adds no errors of its own, and a type that cannot deserialize gets one, at the type,
/// where `Tool::Args` needs the impl. The blanket impl is `do_not_recommend`, so rustc
/// reports this trait's message, not serde's own (which only says to add the derive,
/// wrong for the set's state taken by value).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "the model's JSON cannot be deserialized into this type",
    note = "add `#[derive(serde::Deserialize)]` to `{Self}` (and `schemars::JsonSchema`, for the schema the model reads)",
    note = "if `{Self}` is the set's per-run state, the model must not send it: borrow it, `&{Self}` (or `&mut {Self}` for a tool that writes)"
)]
pub trait DeserializeArgument<'de>: serde::Deserialize<'de> {}
#[diagnostic::do_not_recommend]
impl<'de, T: serde::Deserialize<'de>> DeserializeArgument<'de> for T {}

/// A model-facing argument's type must describe itself as a JSON schema, which the
/// model reads. Generated argument fields get their schema through [`argument_schema`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "the model cannot be shown a JSON schema of this type",
    note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`; its doc comments become the schema's descriptions",
    note = "if `{Self}` is the set's per-run state, the model must not send it: borrow it, `&{Self}` (or `&mut {Self}` for a tool that writes)"
)]
pub trait SchemaArgument: schemars::JsonSchema {}
impl<T: schemars::JsonSchema> SchemaArgument for T {}

/// `#[schemars(schema_with)]` of a generated argument field: `subschema_for::<T>()`,
/// with the bound that explains a missing derive.
pub fn argument_schema<T: SchemaArgument>(
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    generator.subschema_for::<T>()
}

/// [`argument_schema`] of an `Option<T>` field, with the bound on `T` itself.
pub fn optional_argument_schema<T: SchemaArgument>(
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    generator.subschema_for::<Option<T>>()
}

/// A tool's whole arguments type (an `#[args]` type or a propose-only struct) must
/// describe itself as a JSON schema: [`SchemaArgument`]'s rule, said of the whole object.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments: it does not implement `schemars::JsonSchema`",
    label = "the model cannot be shown a JSON schema of this type",
    note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`; its doc comments become the schema's descriptions"
)]
pub trait SchemaArguments: schemars::JsonSchema {}
impl<T: schemars::JsonSchema> SchemaArguments for T {}

/// The input schema of a tool whose arguments are `T` (a whole-object `#[args]` type or
/// a propose-only struct), with the bound that explains a missing derive.
pub fn input_schema_of<T: SchemaArguments>() -> Value {
    input_schema_for::<T>()
}

/// The error of a writing tool handed shared state; `apply` never does this.
pub fn exclusive_access_required(tool: &str) -> crate::ToolError {
    crate::ToolError::failed(crate::messages::exclusive_access_required(tool))
}

/// The spec of a tool of the set `T`, as `toolset!` writes its `SPECS`: its examples
/// checked the way the gate checks a call of `T` (`verify::check_examples`).
pub const fn spec_in<T: crate::ToolSet>(meta: ToolMeta) -> crate::ToolSpec {
    crate::ToolSpec::__new(meta).__in_set(crate::verify::check_examples::<T>)
}

/// Metadata of a tool whose declaration failed to compile; never used at run time.
pub const PLACEHOLDER_META: ToolMeta =
    ToolMeta::new("", "", crate::Tier::Irreversible, || Value::Null).propose_only();

// The one-name-per-set rule the generated code asserts in constant evaluation.
pub use toolset_names::{ConstMessage, duplicate_name_message, earlier_same_name, same_name};

/// The most parameters a handler may give the model to send: `toolset!` checks each of
/// them against the set's per-run state (see [`StateNotSent`]), one slot per parameter.
pub const MAX_SENT_PARAMS: usize = 16;

/// The `I`-th of a handler's parameters that the model sends (`Tool::Sent`, a tuple of
/// their types in order), or [`NoParam`] past the last.
pub trait NthSent<const I: usize> {
    /// The parameter's type.
    type Param: ?Sized;
}

/// The type of a parameter slot a handler does not use; never a set's state.
pub enum NoParam {}

/// `NthSent` for a tuple of arity `n` (its type parameters listed twice: once for the
/// impls' generics, once paired with each index), then `NoParam` for the indices past it.
macro_rules! nth_sent {
    (@one [$($all:ident)*] $index:literal $param:ident) => {
        impl<$($all),*> NthSent<$index> for ($($all,)*) {
            type Param = $param;
        }
    };
    ($all:tt [$(($index:literal $param:ident))*] [$($past:literal)*]) => {
        $(nth_sent!(@one $all $index $param);)*
        $(nth_sent!(@one $all $past NoParam);)*
    };
}
nth_sent!([] [] [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0] [(0 A0)] [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1] [(0 A0) (1 A1)] [2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2] [(0 A0) (1 A1) (2 A2)] [3 4 5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3] [(0 A0) (1 A1) (2 A2) (3 A3)] [4 5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4)] [5 6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5)] [6 7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6)] [7 8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7)] [8 9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8)] [9 10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9)] [10 11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10)] [11 12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10) (11 A11)] [12 13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10) (11 A11) (12 A12)] [13 14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10) (11 A11) (12 A12) (13 A13)] [14 15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10) (11 A11) (12 A12) (13 A13) (14 A14)] [15]);
nth_sent!([A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15] [(0 A0) (1 A1) (2 A2) (3 A3) (4 A4) (5 A5) (6 A6) (7 A7) (8 A8) (9 A9) (10 A10) (11 A11) (12 A12) (13 A13) (14 A14) (15 A15)] []);

/// What `toolset!` asks of each tool for its set's per-run state: `MASK` has bit `i` set
/// when the handler's `i`-th sent parameter ([`NthSent`]) is the state, by value or in a
/// box, pointer or lock (`toolset!` decides that where the state type is known). `#[tool]`
/// implements it with a `CHECK` that fails to evaluate, at that parameter, for any bit
/// set: the compile error that says to borrow the state instead.
pub trait StateNotSent<const MASK: u16> {
    /// Evaluates to `()` when no parameter is the state.
    const CHECK: ();
}

/// The failure of a [`StateNotSent`] check, `message` its text. `#[track_caller]`: the
/// compile error is reported where `#[tool]` writes the call, at the parameter's type (one
/// call per parameter, with no `panic!` of its own to expand).
#[track_caller]
pub const fn state_sent(message: &str) -> ! {
    panic!("{}", message)
}

/// A probe of a handler's return type, read where the type is concrete (the generated
/// `ToolHandler::call`), which picks the conversion by method resolution: a `Result<T, E>`
/// whose `E` is a `std::error::Error` gets [`KeepSource`] ([`KeepsSource`], found on the
/// probe itself), which keeps the error as the failure's
/// [`source`](crate::ToolError::source) for the host's logs; any other return type gets
/// [`Convert`] ([`ConvertsOutput`], found through a reference), through
/// [`IntoToolOutput`](crate::IntoToolOutput), where a `Display` error is its text. (A
/// blanket impl cannot tell the two apart: `String` may one day be an `Error`.)
pub struct Returned<R>(std::marker::PhantomData<fn() -> R>);

impl<R> Returned<R> {
    /// The probe of `returned`'s type.
    pub fn of(_returned: &R) -> Self {
        Returned(std::marker::PhantomData)
    }
}

/// The conversion that keeps a `std::error::Error` as the failure's source: the result is
/// then converted through `IntoToolOutput` like any other.
pub struct KeepSource;

/// The conversion through `IntoToolOutput`.
pub struct Convert;

/// Picks [`KeepSource`] for a `Result` whose error is a `std::error::Error`.
pub trait KeepsSource {
    /// The conversion of this return type.
    fn conversion(&self) -> KeepSource {
        KeepSource
    }
}

impl<T, E> KeepsSource for Returned<Result<T, E>>
where
    T: crate::IntoToolOutput,
    E: std::error::Error + Send + Sync + 'static,
{
}

/// Picks [`Convert`] for every other return type.
pub trait ConvertsOutput {
    /// The conversion of this return type.
    fn conversion(&self) -> Convert {
        Convert
    }
}

impl<R> ConvertsOutput for &Returned<R> {}

impl KeepSource {
    /// The returned value with its error as a [`ToolError`](crate::ToolError) whose source
    /// it is.
    pub fn pass<T, E>(self, returned: Result<T, E>) -> Result<T, crate::ToolError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        returned.map_err(crate::ToolError::from)
    }
}

impl Convert {
    /// The returned value as it is.
    pub fn pass<R>(self, returned: R) -> R {
        returned
    }
}
