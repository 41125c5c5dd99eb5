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
/// where `Tool::Args` needs the impl. (rustc words it with serde's own note, which
/// says to add the derive; the message here shows where the bound is not a blanket.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "the model's JSON cannot be deserialized into this type",
    note = "add `#[derive(serde::Deserialize)]` to `{Self}` (and `schemars::JsonSchema`, for the schema the model reads)"
)]
pub trait DeserializeArgument<'de>: serde::Deserialize<'de> {}
impl<'de, T: serde::Deserialize<'de>> DeserializeArgument<'de> for T {}

/// A model-facing argument's type must describe itself as a JSON schema, which the
/// model reads. Generated argument fields get their schema through [`argument_schema`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "the model cannot be shown a JSON schema of this type",
    note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`; its doc comments become the schema's descriptions"
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

/// The input schema of a tool whose arguments are `T` (a whole-object `#[args]` type or
/// a propose-only struct), with the bound that explains a missing derive.
pub fn input_schema_of<T: SchemaArgument>() -> Value {
    input_schema_for::<T>()
}

/// The error of a writing tool handed shared state; `apply` never does this.
pub fn exclusive_access_required(tool: &str) -> crate::ToolError {
    crate::ToolError::failed(crate::messages::exclusive_access_required(tool))
}

/// Metadata of a tool whose declaration failed to compile; never used at run time.
pub const PLACEHOLDER_META: ToolMeta =
    ToolMeta::new("", "", crate::Tier::Irreversible, || Value::Null).propose_only();

// The one-name-per-set rule the generated code asserts in constant evaluation.
pub use toolset_names::{ConstMessage, duplicate_name_message, earlier_same_name, same_name};
