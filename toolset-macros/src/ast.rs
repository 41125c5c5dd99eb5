//! The item under `#[tool]`, turned into a typed model, with every rule of DESIGN.md
//! checked. Mistakes are recorded and analysis carries on, so all of them are reported.

use crate::attr::{ToolAttr, quoted_list};
use crate::doc::{doc_text, is_doc};
use crate::errors::Errors;
use crate::symbol::{self, ARGS, TIERS};
use proc_macro2::Span;
use quote::ToTokens;
use syn::{
    Attribute, FnArg, Ident, Item, ItemFn, ItemStruct, LitStr, Pat, Path, ReturnType, Type,
    Visibility,
};

/// A tool, as declared.
pub struct Tool {
    /// The fn's or struct's identifier: the handler fn and the arguments type share it.
    pub ident: Ident,
    pub vis: Visibility,
    /// The name the model calls the tool by.
    pub name: String,
    pub description: String,
    pub title: Option<String>,
    /// One of `TIERS`.
    pub tier: String,
    pub timeout_ms: Option<u64>,
    pub deferred: bool,
    pub idempotent: bool,
    pub preview: Option<Path>,
    pub kind: Kind,
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
    /// The handler's return type (`()` when omitted).
    pub output: Type,
}

/// The per-run state parameter.
pub struct State {
    pub ty: Type,
    pub mutable: bool,
}

/// How each handler parameter is supplied.
pub enum Param {
    State,
    Context,
    /// The field of the arguments struct with this name.
    Arg(Ident),
    /// The whole-object form: the parameter receives the typed arguments object.
    WholeArgs(Type),
}

/// A model-facing argument: a field of the generated arguments struct.
pub struct Arg {
    pub ident: Ident,
    pub ty: Type,
    /// Doc comments, `#[serde]` and `#[schemars]` attributes, moved to the field.
    pub attrs: Vec<Attribute>,
}

impl Handler {
    /// The typed-arguments type when the whole-object form is used.
    pub fn whole_args(&self) -> Option<&Type> {
        self.params.iter().find_map(|param| match param {
            Param::WholeArgs(ty) => Some(ty),
            _ => None,
        })
    }
}

/// The item with the attributes the macro consumes removed from its parameters, so it
/// compiles as a plain item whether or not the rest of the input was valid.
pub enum CleanItem {
    Fn(ItemFn),
    Struct(ItemStruct),
    Other(Item),
}

impl ToTokens for CleanItem {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        match self {
            CleanItem::Fn(item) => item.to_tokens(tokens),
            CleanItem::Struct(item) => item.to_tokens(tokens),
            CleanItem::Other(item) => item.to_tokens(tokens),
        }
    }
}

/// Checks `item` against `attr`; returns the model when every rule holds.
pub fn analyze(attr: ToolAttr, item: Item, errors: &mut Errors) -> (CleanItem, Option<Tool>) {
    match item {
        Item::Fn(mut func) => {
            let handler = analyze_fn(&mut func, &attr, errors);
            if let Some(propose_only) = &attr.propose_only {
                errors.at(
                    propose_only,
                    "`propose_only` goes on an args struct, not on a handler: a propose-only tool has no handler to call. \
                     Declare `#[tool(tier = \"irreversible\", propose_only, description = \"...\")]` on a \
                     `#[derive(Deserialize, JsonSchema)] struct` of its arguments instead",
                );
            }
            let tool = common(
                &attr,
                &func.sig.ident,
                &func.vis,
                &func.attrs,
                false,
                errors,
            );
            document_with_description(&mut func.attrs, &attr);
            let clean = CleanItem::Fn(func);
            match (tool, handler) {
                (Some(tool), Some(handler)) if errors.is_empty() => (
                    clean,
                    Some(Tool {
                        kind: Kind::Handler(handler),
                        ..tool
                    }),
                ),
                _ => (clean, None),
            }
        }
        Item::Struct(mut item) => {
            if attr.propose_only.is_none() {
                errors.at(
                    &item.ident,
                    format!(
                        "#[tool] on a struct declares a tool with no handler, which can only be proposed: add `propose_only` \
                         to the attribute, or put #[tool] on an `async fn {}(...)` handler instead",
                        snake_case(&item.ident.to_string())
                    ),
                );
            }
            if let Some(tier) = &attr.tier
                && TIERS.contains(&tier.value().as_str())
                && tier.value() != "irreversible"
            {
                errors.at(
                    tier,
                    format!(
                        "a `propose_only` tool has no handler, so it must never auto-run, but tier \"{}\" can: \
                         use `tier = \"irreversible\"`",
                        tier.value()
                    ),
                );
            }
            if !item.generics.params.is_empty() {
                errors.at(&item.generics, "a tool's arguments struct cannot be generic: the model's JSON needs one concrete type");
            }
            add_deny_unknown_fields(&mut item);
            let tool = common(&attr, &item.ident, &item.vis, &item.attrs, true, errors);
            document_with_description(&mut item.attrs, &attr);
            let clean = CleanItem::Struct(item);
            match tool {
                Some(tool) if errors.is_empty() => (
                    clean,
                    Some(Tool {
                        kind: Kind::ProposeOnly,
                        ..tool
                    }),
                ),
                _ => (clean, None),
            }
        }
        other => {
            errors.at(
                &other,
                "#[tool] goes on an `async fn` handler, or on an args struct with `propose_only`",
            );
            (CleanItem::Other(other), None)
        }
    }
}

/// The keys every tool has, checked. `kind` is filled in by the caller.
fn common(
    attr: &ToolAttr,
    ident: &Ident,
    vis: &Visibility,
    attrs: &[Attribute],
    is_struct: bool,
    errors: &mut Errors,
) -> Option<Tool> {
    let tier = match &attr.tier {
        Some(tier) => tier.value(),
        // A misspelled `tier` key already has its did-you-mean.
        None if attr.meant(symbol::TIER) => String::new(),
        None => {
            let message = format!(
                "tool `{ident}` has no risk tier: add `tier = \"...\"` to #[tool], one of {}",
                quoted_list(TIERS)
            );
            // Underline the attribute's arguments, or the bare `#[tool]`.
            if attr.args.is_empty() {
                errors.push(syn::Error::new(Span::call_site(), message));
            } else {
                errors.at(&attr.args, message);
            }
            String::new()
        }
    };

    let description = match (&attr.description, doc_text(attrs)) {
        (Some(text), _) if text.value().trim().is_empty() => {
            errors.at(
                text,
                "the description is empty, but it is the prompt the model reads: say what the tool does and when to use it",
            );
            String::new()
        }
        (Some(text), _) => text.value().trim().to_owned(),
        (None, Some(doc)) => doc,
        (None, None) if attr.meant(symbol::DESCRIPTION) => String::new(),
        (None, None) => {
            errors.at(
                ident,
                format!(
                    "tool `{ident}` has no description, and the description is the prompt the model reads: \
                     add a doc comment (`/// What it does and when to use it.`) or `description = \"...\"` to #[tool]"
                ),
            );
            String::new()
        }
    };

    let name = match &attr.name {
        Some(name) => checked_name(name.value(), name, errors),
        None => {
            let raw = ident.to_string();
            let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
            // Struct tools are types, named in CamelCase; the model sees snake_case.
            let name = if is_struct { snake_case(&raw) } else { raw };
            checked_name(name, ident, errors)
        }
    };

    let title = attr.title.as_ref().map(LitStr::value);
    let timeout_ms = attr
        .timeout_ms
        .as_ref()
        .and_then(|millis| millis.base10_parse().ok());
    Some(Tool {
        ident: ident.clone(),
        vis: vis.clone(),
        name,
        description,
        title,
        tier,
        timeout_ms,
        deferred: attr.deferred.is_some(),
        idempotent: attr.idempotent.is_some(),
        preview: attr.preview.clone(),
        kind: Kind::ProposeOnly,
    })
}

/// The name grammar every provider and MCP client accepts: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && name.len() <= 64 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn checked_name(name: String, at: impl ToTokens, errors: &mut Errors) -> String {
    if !is_valid_name(&name) {
        errors.at(
            at,
            format!(
                "`{name}` cannot be a tool name: providers and MCP clients accept 1 to 64 characters, \
                 ASCII letters, digits, `_` and `-`, not starting with a digit or `-`. \
                 Choose another with `name = \"...\"`"
            ),
        );
    }
    name
}

/// `SendReply` → `send_reply`, `HTTPRequest` → `http_request`.
pub fn snake_case(ident: &str) -> String {
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let after_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let acronym_end = i > 0
                && chars[i - 1].is_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if after_lower || acronym_end {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `set_due_date` → `SetDueDate`.
pub fn camel_case(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    ident
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// An item described only by `description = "..."` gets it as its doc comment too, so
/// rustdoc and `missing_docs` see what the model sees.
fn document_with_description(attrs: &mut Vec<Attribute>, attr: &ToolAttr) {
    if let Some(description) = &attr.description
        && doc_text(attrs).is_none()
    {
        attrs.push(syn::parse_quote!(#[doc = #description]));
    }
}

/// A propose-only struct rejects unknown argument keys, like generated argument structs.
fn add_deny_unknown_fields(item: &mut ItemStruct) {
    // Without serde's derive, `#[serde]` would not resolve: the missing derive is the error
    // to report, and the `Tool` impl reports it.
    let derives_deserialize = item.attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .meta
                .to_token_stream()
                .to_string()
                .contains("Deserialize")
    });
    let already = !derives_deserialize
        || item.attrs.iter().any(|attr| {
            attr.path().is_ident("serde")
                && attr
                    .meta
                    .to_token_stream()
                    .to_string()
                    .contains("deny_unknown_fields")
        });
    if !already {
        item.attrs
            .push(syn::parse_quote!(#[serde(deny_unknown_fields)]));
    }
}

fn analyze_fn(func: &mut ItemFn, attr: &ToolAttr, errors: &mut Errors) -> Option<Handler> {
    let sig = &mut func.sig;
    if sig.asyncness.is_none() {
        errors.at(
            sig.fn_token,
            format!(
                "tool handlers must be async: write `async fn {}(...)`",
                sig.ident
            ),
        );
    }
    if !sig.generics.params.is_empty() {
        errors.at(
            &sig.generics,
            "a tool handler cannot be generic: the model's JSON needs concrete argument and state types",
        );
    }
    let read_only = attr
        .tier
        .as_ref()
        .is_some_and(|tier| tier.value() == "read_only");

    let mut state: Option<State> = None;
    let mut context_seen = false;
    let mut params = Vec::new();
    let mut args = Vec::new();
    // `#[args] name: Type` parameters, and the tokens of every other argument, to report
    // the two forms mixed.
    let mut whole_params: Vec<(String, Type)> = Vec::new();
    let mut arg_tokens = proc_macro2::TokenStream::new();
    for input in sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                errors.at(
                    &*receiver,
                    "a tool handler is a free function, so it cannot take `self`: move it out of the `impl` \
                     block and take the state as a parameter, e.g. `state: &MyState` (or `&mut MyState` to change it)",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let whole = take_attr(&mut typed.attrs, ARGS);
        let field_attrs = take_field_attrs(&mut typed.attrs);
        if whole {
            let name = typed.pat.to_token_stream().to_string();
            whole_params.push((name, (*typed.ty).clone()));
            params.push(Param::WholeArgs((*typed.ty).clone()));
            continue;
        }
        match &*typed.ty {
            Type::Reference(reference) if owned_form(&reference.elem).is_some() => {
                let owned = owned_form(&reference.elem).unwrap_or_default();
                errors.at(
                    reference,
                    format!(
                        "a tool argument is an owned value that the model's JSON becomes, not a borrow: \
                         write `{}: {owned}`. (A handler's only reference parameters are the state, \
                         `&S` or `&mut S`, and `&ToolContext`.)",
                        typed.pat.to_token_stream()
                    ),
                );
            }
            Type::ImplTrait(impl_trait) => errors.at(
                impl_trait,
                format!(
                    "a tool argument needs one concrete type for the model's JSON to become, not `impl Trait`: \
                     write it, e.g. `{}: String`",
                    typed.pat.to_token_stream()
                ),
            ),
            Type::Reference(reference) if is_tool_context(&reference.elem) => {
                if reference.mutability.is_some() {
                    errors.at(reference, "take the context as `&ToolContext`, not `&mut ToolContext`");
                }
                if context_seen {
                    errors.at(reference, "a tool handler takes `&ToolContext` at most once");
                }
                context_seen = true;
                params.push(Param::Context);
            }
            Type::Reference(reference) => {
                let mutable = reference.mutability.is_some();
                if state.is_some() {
                    errors.at(
                        reference,
                        "a tool handler takes at most one state parameter (`&S` or `&mut S`): put everything the tools \
                         share into one state type. Arguments the model passes are owned values, not references",
                    );
                } else if mutable && read_only {
                    let elem = &reference.elem;
                    errors.at(
                        reference,
                        format!(
                            "a `read_only` tool takes the state as `&{0}`, not `&mut {0}`, so read-only calls can run together. \
                             Write `&{0}`, or declare the tier of a tool that writes, such as `tier = \"reversible\"`",
                            elem.to_token_stream()
                        ),
                    );
                }
                state = Some(State {
                    ty: (*reference.elem).clone(),
                    mutable,
                });
                params.push(Param::State);
            }
            ty => match &*typed.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    // Kept raw (`r#type`): the field must stay a valid identifier, and
                    // serde and schemars name it without the `r#`.
                    let ident = pat.ident.clone();
                    arg_tokens.extend(typed.to_token_stream());
                    params.push(Param::Arg(ident.clone()));
                    args.push(Arg {
                        ident,
                        ty: ty.clone(),
                        attrs: field_attrs,
                    });
                }
                other => errors.at(
                    other,
                    "name this argument with a plain identifier: the model passes it by name. \
                     To take the whole arguments object as one struct, mark the parameter `#[args]`",
                ),
            },
        }
    }
    if let Some((name, ty)) = whole_params.first() {
        let ty = ty.to_token_stream();
        if whole_params.len() > 1 {
            errors.at(
                &whole_params[1].1,
                format!(
                    "`#[args] {name}: {ty}` already receives the whole arguments object: a handler takes one \
                     `#[args]` parameter. Merge the two types into one"
                ),
            );
        }
        if !args.is_empty() {
            let names: Vec<String> = args.iter().map(|arg| format!("`{}`", arg.ident)).collect();
            errors.at(
                &arg_tokens,
                format!(
                    "`#[args] {name}: {ty}` already receives the whole arguments object, so the model cannot \
                     pass {} beside it: move {} into `{ty}`, or drop `#[args]` and list every argument as a parameter",
                    names.join(", "),
                    if names.len() == 1 { "it" } else { "them" },
                ),
            );
        }
    }
    let output = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    Some(Handler {
        state,
        params,
        args,
        output,
    })
}

/// What to write instead of a borrowed argument (`&str` → `String`), when the borrowed type
/// is plainly an argument and not the state.
fn owned_form(elem: &Type) -> Option<String> {
    // Only types no one uses as per-run state; `&Vec<T>` or `&HashMap<K, V>` may well be.
    const VALUES: &[&str] = &[
        "String", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64",
    ];
    match elem {
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            Some("String".to_owned())
        }
        Type::Slice(slice) => Some(format!("Vec<{}>", slice.elem.to_token_stream())),
        Type::Path(path)
            if path.qself.is_none()
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| VALUES.contains(&last.ident.to_string().as_str())) =>
        {
            Some(elem.to_token_stream().to_string().replace(' ', ""))
        }
        _ => None,
    }
}

fn is_tool_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == "ToolContext"))
}

/// Removes the marker attribute `#[name]`, reporting whether it was there.
fn take_attr(attrs: &mut Vec<Attribute>, name: &str) -> bool {
    let before = attrs.len();
    attrs.retain(|attr| !attr.path().is_ident(name));
    attrs.len() != before
}

/// Removes the attributes that belong on the argument's field: docs, `#[serde]`, `#[schemars]`.
fn take_field_attrs(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    let (field, keep): (Vec<Attribute>, Vec<Attribute>) = attrs.drain(..).partition(|attr| {
        is_doc(attr) || attr.path().is_ident("serde") || attr.path().is_ident("schemars")
    });
    *attrs = keep;
    field
}
