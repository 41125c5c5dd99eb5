//! The item under `#[tool]`, turned into a typed model, with every rule of DESIGN.md
//! checked. Mistakes are recorded and analysis carries on, so all of them are reported.

use crate::attr::{ToolAttr, quoted_list};
use crate::doc::{doc_text, is_doc};
use crate::errors::Errors;
use crate::symbol::{ARGS, TIERS};
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
        None => {
            let message = format!(
                "tool `{ident}` has no risk tier: add `tier = \"...\"` with one of {}",
                quoted_list(TIERS)
            );
            match attr.first_key_span() {
                Some(span) => errors.push(syn::Error::new(span, message)),
                None => errors.push(syn::Error::new(Span::call_site(), message)),
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
    let already = item.attrs.iter().any(|attr| {
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
    for input in sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                errors.at(
                    &*receiver,
                    "a tool handler is a free function: it cannot take `self`",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let whole = take_attr(&mut typed.attrs, ARGS);
        let field_attrs = take_field_attrs(&mut typed.attrs);
        if whole {
            params.push(Param::WholeArgs((*typed.ty).clone()));
            continue;
        }
        match &*typed.ty {
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
                    let ident = Ident::new(
                        pat.ident.to_string().trim_start_matches("r#"),
                        pat.ident.span(),
                    );
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
    let whole_count = params
        .iter()
        .filter(|p| matches!(p, Param::WholeArgs(_)))
        .count();
    if whole_count > 1 || (whole_count == 1 && !args.is_empty()) {
        errors.at(
            &sig.inputs,
            "an `#[args]` parameter receives the whole arguments object: the handler cannot also take other \
             arguments. Move them into the `#[args]` struct",
        );
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
