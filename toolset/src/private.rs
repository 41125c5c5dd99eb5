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
pub use toolset_rules::NameIndex;

use serde_json::Value;

/// Whether this build of toolset checks schema constraints (its `constraints` feature):
/// `#[tool]` asserts it at compile time for an argument that declares one with
/// `#[schemars(range(..))]` and the like, where the gate would otherwise refuse the tool
/// at run time.
pub const CONSTRAINTS: bool = cfg!(feature = "constraints");

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
    message = "`{Self}` is taken by value, so it is an argument the model sends, but it does not implement `serde::Deserialize`",
    label = "the model's JSON cannot be deserialized into this type",
    note = "if `{Self}` is the set's per-run state, the model must not send it: borrow it, `&{Self}` (or `&mut {Self}` for a tool that writes); if it holds the state (an `Arc`, a `Box`, a lock, or an alias of one), borrow the state itself, `&S` of `toolset! {{ Name<S> = [...] }}`",
    note = "if the model sends it, add `#[derive(serde::Deserialize)]` to `{Self}` (and `schemars::JsonSchema`, for the schema the model reads)"
)]
pub trait DeserializeArgument<'de>: serde::Deserialize<'de> {}
#[diagnostic::do_not_recommend]
impl<'de, T: serde::Deserialize<'de>> DeserializeArgument<'de> for T {}

/// A model-facing argument's type must describe itself as a JSON schema, which the
/// model reads. Generated argument fields get their schema through [`argument_schema`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken by value, so it is an argument the model sends, but it does not implement `schemars::JsonSchema`",
    label = "the model cannot be shown a JSON schema of this type",
    note = "if `{Self}` is the set's per-run state, the model must not send it: borrow it, `&{Self}` (or `&mut {Self}` for a tool that writes); if it holds the state (an `Arc`, a `Box`, a lock, or an alias of one), borrow the state itself, `&S` of `toolset! {{ Name<S> = [...] }}`",
    note = "if the model sends it, add `#[derive(schemars::JsonSchema)]` to `{Self}`; its doc comments become the schema's descriptions"
)]
pub trait SchemaArgument: schemars::JsonSchema {}
impl<T: schemars::JsonSchema> SchemaArgument for T {}

/// The schema of a generated argument field: `subschema_for::<T>()`, with the bound that
/// explains a missing derive. Named by the struct's [`Argument`] list, or by
/// `#[schemars(schema_with)]` where schemars' derive writes the struct's schema.
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

/// One field of a generated arguments struct, as its `JsonSchema` impl lists it for
/// [`arguments_schema`]: what schemars' derive writes per field, as data.
pub struct Argument {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    optional: bool,
    /// `#[mcp_header("...")]`'s name, or empty.
    mcp_header: &'static str,
    schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
}

impl Argument {
    /// A field the model must send.
    pub const fn required(
        name: &'static str,
        schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    ) -> Argument {
        Argument {
            name,
            title: "",
            description: "",
            optional: false,
            mcp_header: "",
            schema,
        }
    }

    /// A field the model may leave out (an `Option`).
    pub const fn optional(
        name: &'static str,
        schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    ) -> Argument {
        Argument {
            optional: true,
            ..Argument::required(name, schema)
        }
    }

    /// The field's title: the first line of its doc comment, when that starts with `#`
    /// (schemars' rule).
    pub const fn title(mut self, title: &'static str) -> Argument {
        self.title = title;
        self
    }

    /// The field's description: its doc comment (after the title line, if any).
    pub const fn description(mut self, description: &'static str) -> Argument {
        self.description = description;
        self
    }

    /// `#[mcp_header("Region")]`: the property's `x-mcp-header`, which only MCP lists.
    pub const fn mcp_header(mut self, header: &'static str) -> Argument {
        self.mcp_header = header;
        self
    }
}

/// What `#[mcp_header]` may mirror: the argument types whose schema is a plain `string`,
/// `integer` or `boolean`, the only types MCP allows an `x-mcp-header` on (a client drops a
/// tool annotating anything else). An `Option` is not one: its schema admits `null` too.
#[diagnostic::on_unimplemented(
    message = "`#[mcp_header]` cannot mirror a `{Self}` argument into a header",
    label = "MCP mirrors only a string, an integer or a bool",
    note = "take the argument as `String`, `bool` or an integer type (`u32`, `i64`, ...), or drop `#[mcp_header]`"
)]
pub trait McpHeaderArgument {}
impl McpHeaderArgument for String {}
impl McpHeaderArgument for bool {}
macro_rules! mirrored_integers {
    ($($ty:ty),*) => { $(impl McpHeaderArgument for $ty {})* };
}
mirrored_integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The check `#[tool]` writes for each `#[mcp_header]` argument, spanned at its type.
pub const fn mcp_header_argument<T: McpHeaderArgument>() {}

/// The `JsonSchema` of a generated arguments struct whose fields carry no `#[serde]` or
/// `#[schemars]` attribute: the object schema schemars' derive writes for it under
/// `deny_unknown_fields` (each field's subschema with its title and description, the
/// fields without a default `required`), built here once rather than expanded per field.
pub fn arguments_schema(
    generator: &mut schemars::SchemaGenerator,
    arguments: &[Argument],
) -> schemars::Schema {
    let mut object = serde_json::Map::new();
    object.insert("type".into(), "object".into());
    object.insert("additionalProperties".into(), false.into());
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for argument in arguments {
        let mut schema = (argument.schema)(generator);
        for (key, text) in [
            ("title", argument.title),
            ("description", argument.description),
            (crate::schema::MCP_HEADER, argument.mcp_header),
        ] {
            if !text.is_empty() {
                schema.insert(key.into(), text.into());
            }
        }
        properties.insert(argument.name.into(), schema.into());
        if !argument.optional {
            required.push(Value::from(argument.name));
        }
    }
    if !arguments.is_empty() {
        object.insert("properties".into(), properties.into());
    }
    if !required.is_empty() {
        object.insert("required".into(), required.into());
    }
    object.into()
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
pub fn exclusive_access_required(tool: &str) -> crate::error::ToolError {
    crate::error::ToolError::failed(crate::messages::exclusive_access_required(tool))
}

/// The spec of a tool of the set `T`, as `toolset!` writes its `SPECS`: its examples
/// checked the way the gate checks a call of `T` (`verify::check_examples`).
pub const fn spec_in<T: crate::set::ToolSet>(meta: ToolMeta) -> crate::spec::ToolSpec {
    crate::spec::ToolSpec::__new(meta).__in_set(crate::verify::check_examples::<T>)
}

/// What the first use of the set `T` does about its broken declarations, with a debug
/// build's `panic` or a release build's error event chosen by the caller: a test builds in
/// debug, and sees the release build's event through this.
pub fn announce_misdeclared<T: crate::set::ToolSet>(panic: bool) {
    crate::declaration::announce(T::NAME, T::specs(), panic)
}

/// Metadata of a tool whose declaration failed to compile; never used at run time.
pub const PLACEHOLDER_META: ToolMeta =
    ToolMeta::new("", "", crate::tier::Tier::Irreversible, || Value::Null).propose_only();

// The one-name-per-set rule the generated code asserts in constant evaluation.
pub use toolset_rules::{ConstMessage, duplicate_name_message, earlier_same_name, same_name};

/// Implemented by `toolset!` for its per-run state and the state's `Arc`, `Rc`, `Box`,
/// `Mutex` and `RwLock` forms, `Set` being the set's own type: the types no parameter the
/// model sends may have (see [`StateNotSent`]).
pub trait HoldsState<Set> {}

/// Implemented by `toolset!`: the set's per-run state as written in the set, for the
/// message of a failed [`StateNotSent`] check, which names the type to borrow.
pub trait SetState {
    /// The state type as the user wrote it in `toolset! { Name<State> = [...] }`.
    const WRITTEN: &'static str;
}

/// The first parameter of a `Tool::Sent` list, `(A0, (A1, (.., ())))`.
pub enum First {}

/// The parameter after the one `I` names.
pub struct Next<I>(std::marker::PhantomData<I>);

/// A position in a `Tool::Sent` list, counted from 1.
pub trait Position {
    /// The position: 1 for [`First`].
    const AT: usize;
}

impl Position for First {
    const AT: usize = 1;
}

impl<I: Position> Position for Next<I> {
    const AT: usize = I::AT + 1;
}

/// That the list of sent parameter types `Self` has, at position `I`, a type holding the
/// state of `Set`. A list of any length: no handler is too wide for the check.
pub trait SendsState<Set, I> {}

impl<Set, H: HoldsState<Set>, T> SendsState<Set, First> for (H, T) {}

impl<Set, H, T: SendsState<Set, I>, I> SendsState<Set, Next<I>> for (H, T) {}

/// No position: the list sends no state.
pub enum Nowhere {}

/// Where in the list `Sent` a parameter holds the state of `Set`: `toolset!` reads
/// `StateProbe::<Sent, Set, _>::AT`, whose position `I` is inferred. The inherent `AT`
/// (the position) is found when `Sent: SendsState<Set, I>` holds for some `I`; otherwise
/// [`SendsNoState`]'s (0), with `I` [`Nowhere`]. One probe per tool, whatever its width.
pub struct StateProbe<Sent, Set, I>(std::marker::PhantomData<(Sent, Set, I)>);

impl<Sent: SendsState<Set, I>, Set, I: Position> StateProbe<Sent, Set, I> {
    /// The position of the parameter holding the state, from 1.
    pub const AT: usize = I::AT;
}

/// The answer of a [`StateProbe`] that finds no parameter holding the state.
pub trait SendsNoState {
    /// No position.
    const AT: usize = 0;
}

impl<Sent, Set> SendsNoState for StateProbe<Sent, Set, Nowhere> {}

/// What `toolset!` asks of each tool for the per-run state of `Set`: `STATE_AT` is the
/// position (from 1) of the handler's first sent parameter that holds the state, by value
/// or in a box, pointer or lock (`toolset!` finds it with a [`StateProbe`], where the
/// state type is known), or 0. `#[tool]` implements it with a `CHECK` that fails to
/// evaluate at that parameter: the compile error that says to borrow the state instead.
pub trait StateNotSent<Set, const STATE_AT: usize> {
    /// Evaluates to `()` when no parameter holds the state.
    const CHECK: ();
}

/// The failure of a [`StateNotSent`] check: `head` says which parameter holds the state
/// (`` `name: Type` ``), `name` is its name, the message names the state `Set` has. A
/// `read_only` tool is told to read it, any other that it may write. `#[track_caller]`:
/// the compile error is reported where `#[tool]` writes the call, at the parameter's type
/// (one call per parameter, with no `panic!` of its own to expand).
#[track_caller]
pub const fn state_sent<Set: SetState>(head: &str, name: &str, read_only: bool) -> ! {
    let state = Set::WRITTEN;
    let message = ConstMessage::new()
        .push(head)
        .push(
            " holds this set's per-run state, so the model would send it as an argument. \
             The per-run state is borrowed: take `",
        )
        .push(name)
        .push(": &")
        .push(state);
    let message = if read_only {
        message.push("` (a `read_only` tool reads it)")
    } else {
        message
            .push("` (or `&mut ")
            .push(state)
            .push("` for a tool that writes)")
    };
    panic!("{}", message.as_str())
}

/// A probe of a handler's return type, read where the type is concrete (the generated
/// `ToolHandler::call`), which picks the conversion by method resolution: a `Result<T, E>`
/// whose `E` is a `std::error::Error` gets [`KeepSource`] ([`KeepsSource`], found on the
/// probe itself), which keeps the error as the failure's
/// [`source`](crate::ToolError::source) for the host's logs; any other return type gets
/// [`Convert`] ([`ConvertsOutput`], found through a reference), through
/// [`IntoToolOutput`](crate::output::IntoToolOutput), where a `Display` error is its text. (A
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
    T: crate::output::IntoToolOutput,
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
    pub fn pass<T, E>(self, returned: Result<T, E>) -> Result<T, crate::error::ToolError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        returned.map_err(crate::error::ToolError::from)
    }
}

impl Convert {
    /// The returned value as it is.
    pub fn pass<R>(self, returned: R) -> R {
        returned
    }
}
