//! Every rule of `#[tool]` (DESIGN.md's list), in one place: given the attribute's keys and
//! the user's item, either the checked [`Tool`] or every broken rule recorded in the
//! context. Checks run to the end even after a failure, so the user sees all mistakes.

use super::attr::{ToolAttr, did_you_mean, quoted_list};
use super::item::{ParamAttrs, UserItem};
use super::model::{Arg, Handler, Kind, Param, SentParam, State, Tier, Tool};
use crate::case::snake_case;
use crate::ctxt::Ctxt;
use crate::doc::doc_text;
use crate::runtime::Runtime;
use crate::symbol;
use proc_macro2::Span;
use quote::ToTokens;
use syn::{Attribute, FnArg, Ident, ItemFn, Pat, ReturnType, Type, Visibility};
use toolset_rules::declaration::{self, Declaration, JsonKind, Part, StateUse};

/// The checked tool, or `None` with every reason recorded in `cx`.
pub fn tool(
    attr: &ToolAttr,
    item: &UserItem,
    params: &[ParamAttrs],
    cx: &mut Ctxt,
) -> Option<Tool> {
    let tier = tier(attr, cx);
    let timeout_ms = timeout_ms(attr, cx);
    let (kind, ident, vis, attrs, is_struct) = match item {
        UserItem::Fn(func) => {
            let handler = handler(func, params, cx);
            if let Some(propose_only) = &attr.propose_only {
                cx.error_at(
                    propose_only,
                    "`propose_only` goes on an args struct, not on a handler: a propose-only tool has no handler to call. \
                     Declare `#[tool(tier = \"irreversible\", propose_only, description = \"...\")]` on a \
                     `#[derive(Deserialize, JsonSchema)] struct` of its arguments instead",
                );
            }
            let kind = handler.map(Kind::Handler);
            (kind, &func.sig.ident, &func.vis, &func.attrs, false)
        }
        UserItem::Struct(item) => {
            if attr.propose_only.is_none() {
                cx.error_at(
                    &item.ident,
                    format!(
                        "#[tool] on a struct declares a tool with no handler, which can only be proposed: add `propose_only` \
                         to the attribute, or put #[tool] on an `async fn {}(...)` handler instead",
                        snake_case(&item.ident.to_string())
                    ),
                );
            }
            if !item.generics.params.is_empty() {
                cx.error_at(
                    &item.generics,
                    "a tool's arguments struct cannot be generic: the model's JSON needs one concrete type",
                );
            }
            (
                Some(Kind::ProposeOnly),
                &item.ident,
                &item.vis,
                &item.attrs,
                true,
            )
        }
        UserItem::Other(other) => {
            cx.error_at(
                other,
                "#[tool] goes on an `async fn` handler, or on an args struct with `propose_only`",
            );
            return None;
        }
    };
    let tier = tier.or_else(|| {
        missing_tier(attr, ident, cx);
        None
    });
    let description = description(attr, ident, attrs, cx);
    let (name, name_at) = name(attr, ident, is_struct);
    let reads = labels(attr.reads.as_ref(), symbol::READS, symbol::READ_LABELS, cx);
    let sends = labels(attr.sends.as_ref(), symbol::SENDS, symbol::SEND_LABELS, cx);
    let examples = examples(attr, cx);
    let state = match &kind {
        Some(Kind::Handler(handler)) => handler.state.as_ref(),
        _ => None,
    };
    let errors_before = cx.error_count();
    declaration_rules(
        &Declared {
            attr,
            name: &name,
            name_at: &name_at,
            description: description.as_deref(),
            tier,
            propose_only: is_struct,
            timeout_ms: timeout_ms.flatten(),
            state,
            examples: &examples,
        },
        cx,
    );
    let rules_hold = cx.error_count() == errors_before;
    let escalate = escalate(attr, tier, cx);
    let runtime = Runtime::read(attr.krate.as_ref(), cx);
    let examples: Option<Vec<String>> = examples
        .into_iter()
        .map(|(text, kind)| kind.map(|_| text))
        .collect();
    rules_hold.then_some(())?;
    Some(Tool {
        ident: ident.clone(),
        vis: Visibility::clone(vis),
        name,
        description: description?,
        title: attr.title.as_ref().map(syn::LitStr::value),
        tier: tier?,
        timeout_ms: timeout_ms?,
        deferred: attr.deferred.is_some(),
        late_result: attr.late_result.is_some(),
        idempotent: attr.idempotent.is_some(),
        preview: attr.preview.clone(),
        escalate,
        reads_private: reads.as_ref()?.contains(&"private"),
        reads_untrusted: reads.as_ref()?.contains(&"untrusted"),
        sends_outside: sends?.contains(&"outside"),
        examples: examples?,
        kind: kind?,
        runtime: runtime?,
    })
}

/// What the shared rules read of a `#[tool]`, and where each part is written.
struct Declared<'a> {
    attr: &'a ToolAttr,
    name: &'a str,
    /// The name as written: `name = "..."`, or the item's identifier.
    name_at: &'a proc_macro2::TokenStream,
    description: Option<&'a str>,
    tier: Option<Tier>,
    propose_only: bool,
    timeout_ms: Option<u64>,
    state: Option<&'a State>,
    /// Each `example = "..."`'s text and what JSON it is (`None`: not JSON, said already).
    examples: &'a [(String, Option<JsonKind>)],
}

/// The rules every declaration keeps, compiled or runtime (`toolset_rules::declaration`,
/// which registration runs too): each broken one recorded at the part it is about, in the
/// words registration uses.
fn declaration_rules(declared: &Declared<'_>, cx: &mut Ctxt) {
    let state_name = declared.state.map(|state| tidy(&state.ty));
    let kinds: Vec<Option<JsonKind>> = declared.examples.iter().map(|(_, kind)| *kind).collect();
    let declaration = Declaration {
        name: declared.name,
        description: declared.description,
        tier: declared.tier,
        propose_only: declared.propose_only,
        timeout_ms: declared.timeout_ms,
        state: declared
            .state
            .zip(state_name.as_deref())
            .map(|(state, type_name)| StateUse {
                type_name,
                writes: state.mutable,
            }),
        examples: &kinds,
    };
    let attr = declared.attr;
    for problem in declaration::check(&declaration) {
        let at = match problem.part() {
            Part::Name => Some(declared.name_at.clone()),
            Part::Description => attr.description.as_ref().map(ToTokens::to_token_stream),
            Part::Tier => attr.tier.as_ref().map(ToTokens::to_token_stream),
            Part::TimeoutMs => attr.timeout_ms.as_ref().map(ToTokens::to_token_stream),
            Part::State => declared.state.map(|state| state.written.to_token_stream()),
            Part::Example(position) => attr.examples.get(position).map(ToTokens::to_token_stream),
        };
        // A part the macro read has tokens; were one missing, the item still carries it.
        cx.error_at(at.unwrap_or_else(|| declared.name_at.clone()), problem);
    }
}

/// `escalate = path` can only raise a tier, so on an `irreversible` tool (or a
/// propose-only one, which is irreversible) there is nothing left to raise it to: a
/// mistake, not a no-op. The path's signature is checked by the compiler, spanned at it.
fn escalate(attr: &ToolAttr, tier: Option<Tier>, cx: &mut Ctxt) -> Option<syn::Path> {
    let path = attr.escalate.as_ref()?;
    if tier == Some(Tier::Irreversible) {
        cx.error_at(
            path,
            "`escalate` can only raise a call's tier, and `irreversible` is the highest: \
             drop `escalate`, or declare the tool's usual tier (e.g. `tier = \"reversible\"`) and let the \
             escalation raise the calls that need it",
        );
    }
    Some(path.clone())
}

/// Each `example = "..."` as JSON: its text and what it is, `None` where it is not JSON
/// (reported here). That it is an object is the shared rule (`declaration_rules`); whether
/// the tool's types accept it is known only to the set (`toolset::check_declarations`).
fn examples(attr: &ToolAttr, cx: &mut Ctxt) -> Vec<(String, Option<JsonKind>)> {
    attr.examples
        .iter()
        .map(|example| {
            let text = example.value();
            let kind = match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(value) => Some(json_kind(&value)),
                Err(error) => {
                    cx.error_at(
                        example,
                        format!(
                            "this example is not JSON ({error}): write the arguments as a JSON object, keys in \
                             double quotes, e.g. `example = r#\"{{\"query\": \"invoices\"}}\"#`"
                        ),
                    );
                    None
                }
            };
            (text, kind)
        })
        .collect()
}

/// What `value` is, as the shared rules name it.
fn json_kind(value: &serde_json::Value) -> JsonKind {
    match value {
        serde_json::Value::Null => JsonKind::Null,
        serde_json::Value::Bool(_) => JsonKind::Bool,
        serde_json::Value::Number(_) => JsonKind::Number,
        serde_json::Value::String(_) => JsonKind::String,
        serde_json::Value::Array(_) => JsonKind::Array,
        serde_json::Value::Object(_) => JsonKind::Object,
    }
}

/// `tier = "..."` names a tier. `None` when it is missing (reported later, with the
/// item's name) or unknown (reported here).
fn tier(attr: &ToolAttr, cx: &mut Ctxt) -> Option<Tier> {
    let written = attr.tier.as_ref()?;
    let text = written.value();
    let tier = Tier::parse(&text);
    if tier.is_none() {
        let spellings = Tier::ALL.map(Tier::as_str);
        cx.error_at(
            written,
            format!(
                "unknown tier `{text}`{}: write one of {}",
                did_you_mean(&text, &spellings),
                quoted_list(&spellings)
            ),
        );
    }
    tier
}

/// `reads = "..."` or `sends = "..."`: labels separated by commas, each one of `valid`,
/// none twice. One string, not a repeated key, because a tool's labels are one set read
/// at once (`reads = "private, untrusted"`), as a tier is one value; a repeated key stays
/// the mistake it is for every other key. `None` when some label is wrong (reported here).
fn labels(
    written: Option<&syn::LitStr>,
    key: &str,
    valid: &'static [&'static str],
    cx: &mut Ctxt,
) -> Option<Vec<&'static str>> {
    let Some(written) = written else {
        return Some(Vec::new());
    };
    let text = written.value();
    let what = match valid {
        [one] => format!("\"{one}\""),
        _ => format!("{}, or several separated by commas", quoted_list(valid)),
    };
    if text.trim().is_empty() {
        cx.error_at(
            written,
            format!("`{key} = \"\"` names no label: write {what}, or leave `{key}` out"),
        );
        return None;
    }
    let mut found = Vec::new();
    let mut ok = true;
    for part in text.split(',').map(str::trim) {
        match valid.iter().find(|label| **label == part) {
            Some(label) if found.contains(label) => {
                cx.error_at(
                    written,
                    format!("`{part}` is named twice in `{key}`; keep one"),
                );
                ok = false;
            }
            Some(label) => found.push(*label),
            None => {
                // A label of the other key: say which key takes it.
                let other = if key == symbol::READS {
                    symbol::SEND_LABELS.contains(&part).then_some(symbol::SENDS)
                } else {
                    symbol::READ_LABELS.contains(&part).then_some(symbol::READS)
                };
                let message = match other {
                    Some(other) => format!(
                        "`{part}` is not something a tool {key}: write `{other} = \"{part}\"`"
                    ),
                    None if part.is_empty() => {
                        format!("an empty label in `{key} = \"{text}\"`: write {what}")
                    }
                    None => format!(
                        "unknown label `{part}` in `{key}`{}: write {what}",
                        did_you_mean(part, valid)
                    ),
                };
                cx.error_at(written, message);
                ok = false;
            }
        }
    }
    ok.then_some(found)
}

/// Every tool has a tier: there is no default risk.
fn missing_tier(attr: &ToolAttr, ident: &Ident, cx: &mut Ctxt) {
    if attr.tier.is_some() || attr.meant(symbol::TIER) {
        // Unknown, or a misspelled key: already reported with a did-you-mean.
        return;
    }
    let message = format!(
        "tool `{ident}` has no risk tier: add `tier = \"...\"` to #[tool], one of {}",
        quoted_list(&Tier::ALL.map(Tier::as_str))
    );
    // Underline the attribute's arguments, or the bare `#[tool]`.
    if attr.args.is_empty() {
        cx.push(syn::Error::new(Span::call_site(), message));
    } else {
        cx.error_at(&attr.args, message);
    }
}

/// `timeout_ms` is a whole number of milliseconds; `Some(None)` when not given.
fn timeout_ms(attr: &ToolAttr, cx: &mut Ctxt) -> Option<Option<u64>> {
    let Some(millis) = &attr.timeout_ms else {
        return Some(None);
    };
    match millis.base10_parse::<u64>() {
        Ok(millis) => Some(Some(millis)),
        Err(error) => {
            cx.error_at(
                millis,
                format!("`timeout_ms` takes milliseconds as a whole number: {error}"),
            );
            None
        }
    }
}

/// The description is the prompt: `description = "..."`, else the doc comment.
fn description(
    attr: &ToolAttr,
    ident: &Ident,
    attrs: &[Attribute],
    cx: &mut Ctxt,
) -> Option<String> {
    match (&attr.description, doc_text(attrs)) {
        // An empty one is the shared rule's (`declaration_rules`).
        (Some(text), _) => Some(text.value().trim().to_owned()),
        (None, Some(doc)) => Some(doc),
        // A misspelled `description` key already has its did-you-mean.
        (None, None) if attr.meant(symbol::DESCRIPTION) => None,
        (None, None) => {
            cx.error_at(
                ident,
                format!(
                    "tool `{ident}` has no description, and the description is the prompt the model reads: \
                     add a doc comment (`/// What it does and when to use it.`) or `description = \"...\"` to #[tool]"
                ),
            );
            None
        }
    }
}

/// The name the model calls, and where it is written: `name = "..."`, else the
/// identifier (a struct's snake_cased). Its grammar and the reserved names are the shared
/// rules (`declaration_rules`).
fn name(attr: &ToolAttr, ident: &Ident, is_struct: bool) -> (String, proc_macro2::TokenStream) {
    match &attr.name {
        Some(name) => (name.value(), name.to_token_stream()),
        None => {
            let raw = ident.to_string();
            let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
            // Struct tools are types, named in CamelCase; the model sees snake_case.
            let name = if is_struct { snake_case(&raw) } else { raw };
            (name, ident.to_token_stream())
        }
    }
}

/// The handler's signature: async, not generic, no `self`, at most one state and one
/// context, `&S` on a read-only tool, owned arguments with plain names, one argument form.
fn handler(func: &ItemFn, params: &[ParamAttrs], cx: &mut Ctxt) -> Option<Handler> {
    let sig = &func.sig;
    let errors_before = cx.error_count();
    if sig.asyncness.is_none() {
        cx.error_at(
            sig.fn_token,
            format!(
                "tool handlers must be async: write `async fn {}(...)`",
                sig.ident
            ),
        );
    }
    let mut state: Option<State> = None;
    let mut context_seen = false;
    let mut classified = Vec::new();
    let mut args = Vec::new();
    // `#[args] name: Type` parameters, and the tokens of every other argument, to report
    // the two forms mixed.
    let mut whole_params: Vec<(String, Type)> = Vec::new();
    let mut arg_tokens = proc_macro2::TokenStream::new();
    let mut sent: Vec<SentParam> = Vec::new();
    // Arguments that borrow: a lifetime the handler declares for them is explained there.
    let mut borrowing = 0;
    // Each `#[mcp_header("...")]` name, to refuse one written twice.
    let mut headers: Vec<syn::LitStr> = Vec::new();
    for (input, taken) in sig.inputs.iter().zip(params) {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                cx.error_at(
                    receiver,
                    "a tool handler is a free function, so it cannot take `self`: move it out of the `impl` \
                     block and take the state as a parameter, e.g. `state: &MyState` (or `&mut MyState` to change it)",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        if let Some(wrapped) = context_by_value(&typed.ty) {
            cx.error_at(
                &typed.ty,
                format!(
                    "the context is borrowed, not sent by the model: take `{}: &ToolContext`{wrapped}",
                    typed.pat.to_token_stream()
                ),
            );
            continue;
        }
        if let Some(inner) = shared(&typed.ty) {
            let name = typed.pat.to_token_stream();
            let (ty, inner) = (tidy(&typed.ty), tidy(inner));
            cx.error_at(
                &typed.ty,
                format!(
                    "`{name}: {ty}` is shared state, but a handler's owned parameters are arguments the model \
                     sends as JSON. If `{inner}` is the set's per-run state, borrow it: `{name}: &{inner}` \
                     (or `&mut {inner}` for a tool that writes); if the model sends it, take `{name}: {inner}`"
                ),
            );
            continue;
        }
        if !matches!(&*typed.ty, Type::Reference(_))
            && let Some(borrowed) = borrowed_inside(&typed.ty)
        {
            let name = typed.pat.to_token_stream();
            let holder = borrowed
                .holder
                .map(|holder| {
                    format!(", with `{holder}` holding owned data (`String` for `&str`, `Vec<T>` for `&[T]`)")
                })
                .unwrap_or_default();
            cx.error_at(
                &typed.ty,
                format!(
                    "{OWNED_ARGUMENT}, but `{name}: {}` borrows {}: write `{name}: {}`{holder}. {REFERENCE_PARAMETERS}",
                    tidy(&typed.ty),
                    borrowed.what,
                    tidy(&borrowed.owned)
                ),
            );
            borrowing += 1;
            continue;
        }
        if taken.whole_args {
            header_off_an_argument(
                taken,
                "`#[args]` takes the whole arguments object, which no one header can mirror: \
                 put `#[schemars(extend(\"x-mcp-header\" = \"Region\"))]` on the field of your arguments type instead",
                cx,
            );
            let name = typed.pat.to_token_stream().to_string();
            sent.push(SentParam {
                name: name.clone(),
                ty: (*typed.ty).clone(),
                whole: true,
            });
            whole_params.push((name, (*typed.ty).clone()));
            classified.push(Param::WholeArgs(typed.ty.clone()));
            continue;
        }
        match &*typed.ty {
            Type::Reference(reference) if owned_form(&reference.elem).is_some() => {
                let owned = owned_form(&reference.elem).unwrap_or_default();
                cx.error_at(
                    reference,
                    format!(
                        "{OWNED_ARGUMENT}: write `{}: {owned}`. {REFERENCE_PARAMETERS}",
                        typed.pat.to_token_stream()
                    ),
                );
            }
            Type::ImplTrait(impl_trait) => cx.error_at(
                impl_trait,
                format!(
                    "a tool argument needs one concrete type for the model's JSON to become, not `impl Trait`: \
                     write it, e.g. `{}: String`",
                    typed.pat.to_token_stream()
                ),
            ),
            Type::Reference(reference) if is_tool_context(&reference.elem) => {
                if reference.mutability.is_some() {
                    cx.error_at(reference, "take the context as `&ToolContext`, not `&mut ToolContext`");
                }
                if context_seen {
                    cx.error_at(reference, "a tool handler takes `&ToolContext` at most once");
                }
                context_seen = true;
                header_off_an_argument(taken, "the context is not sent by the model, so no header mirrors it", cx);
                classified.push(Param::Context);
            }
            Type::Reference(reference) => {
                let mutable = reference.mutability.is_some();
                if state.is_some() {
                    cx.error_at(
                        reference,
                        "a tool handler takes at most one state parameter (`&S` or `&mut S`): put everything the tools \
                         share into one state type. Arguments the model passes are owned values, not references",
                    );
                }
                header_off_an_argument(taken, "the state is not sent by the model, so no header mirrors it", cx);
                // A `read_only` tool writing it is the shared rule (`declaration`, in `tool`).
                state = Some(State {
                    ty: (*reference.elem).clone(),
                    mutable,
                    written: reference.clone(),
                });
                classified.push(Param::State);
            }
            ty => match &*typed.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    // Kept raw (`r#type`): the field must stay a valid identifier, and
                    // serde and schemars name it without the `r#`.
                    let ident = pat.ident.clone();
                    arg_tokens.extend(typed.to_token_stream());
                    sent.push(SentParam {
                        name: pat.ident.to_string(),
                        ty: ty.clone(),
                        whole: false,
                    });
                    classified.push(Param::Arg(ident.clone()));
                    let header = mcp_header(&taken.mcp_header, cx);
                    if let Some(header) = &header {
                        headers.push(header.clone());
                    }
                    args.push(Arg {
                        ident,
                        ty: ty.clone(),
                        attrs: taken.field.clone(),
                        mcp_header: header.as_ref().map(syn::LitStr::value),
                    });
                }
                other => cx.error_at(
                    other,
                    "name this argument with a plain identifier: the model passes it by name. \
                     To take the whole arguments object as one struct, mark the parameter `#[args]`",
                ),
            },
        }
    }
    for (at, header) in headers.iter().enumerate() {
        let name = header.value();
        if let Some(first) = headers[..at]
            .iter()
            .find(|seen| seen.value().eq_ignore_ascii_case(&name))
        {
            cx.error_at(
                header,
                format!(
                    "`Mcp-Param-{name}` already mirrors another argument (`#[mcp_header(\"{}\")]`; header names \
                     ignore case): give each argument its own header name",
                    first.value()
                ),
            );
        }
    }
    // Lifetimes only, all for arguments that borrow: said at the arguments, with the fix.
    let lifetimes_only = sig
        .generics
        .params
        .iter()
        .all(|param| matches!(param, syn::GenericParam::Lifetime(_)));
    let explained = lifetimes_only && borrowing > 0;
    if !(sig.generics.params.is_empty() || explained) {
        cx.error_at(
            &sig.generics,
            "a tool handler cannot be generic: the model's JSON needs concrete argument and state types",
        );
    }
    if let Some((name, ty)) = whole_params.first() {
        let ty = ty.to_token_stream();
        if let Some((_, second)) = whole_params.get(1) {
            cx.error_at(
                second,
                format!(
                    "`#[args] {name}: {ty}` already receives the whole arguments object: a handler takes one \
                     `#[args]` parameter. Merge the two types into one"
                ),
            );
        }
        if !args.is_empty() {
            let names: Vec<String> = args.iter().map(|arg| format!("`{}`", arg.ident)).collect();
            cx.error_at(
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
    if cx.error_count() != errors_before {
        return None;
    }
    let output = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    Some(Handler {
        state,
        params: classified,
        args,
        sent,
        output,
    })
}

/// `#[mcp_header("Region")]` on an argument: its header name, one string literal that is an
/// HTTP field name (RFC 9110's `token`), as MCP requires of `x-mcp-header`. `None` when
/// there is none, or it is broken (reported here).
fn mcp_header(attrs: &[Attribute], cx: &mut Ctxt) -> Option<syn::LitStr> {
    let (first, rest) = attrs.split_first()?;
    for extra in rest {
        cx.error_at(
            extra,
            "an argument is mirrored into one header: keep one `#[mcp_header(\"...\")]`",
        );
    }
    let Ok(name) = first.parse_args::<syn::LitStr>() else {
        cx.error_at(
            first,
            "write the header's name as a string, e.g. `#[mcp_header(\"Region\")]`, which an MCP client \
             sends as `Mcp-Param-Region`",
        );
        return None;
    };
    let text = name.value();
    if !toolset_rules::is_header_name(&text) {
        cx.error_at(
            &name,
            format!(
                "`{text}` cannot be an HTTP header name: write ASCII letters, digits or \
                 ``!#$%&'*+-.^_`|~`` only, no spaces or colons, e.g. `#[mcp_header(\"Region\")]`"
            ),
        );
        return None;
    }
    Some(name)
}

/// `#[mcp_header]` on a parameter the model does not send as one argument: refused, saying
/// `why`.
fn header_off_an_argument(taken: &ParamAttrs, why: &str, cx: &mut Ctxt) {
    if let Some(attr) = taken.mcp_header.first() {
        cx.error_at(
            attr,
            format!(
                "`#[mcp_header]` mirrors one argument the model sends into a header, but {why}"
            ),
        );
    }
}

/// How every message about a borrowed argument starts.
const OWNED_ARGUMENT: &str =
    "a tool argument is an owned value that the model's JSON becomes, not a borrow";

/// How every message about a borrowed argument ends.
const REFERENCE_PARAMETERS: &str = "(A handler's only reference parameters are the state, \
     `&S` or `&mut S`, and `&ToolContext`.)";

/// What an argument type borrows, found inside it (`Option<&str>`, `Vec<&[u8]>`,
/// `Text<'a>`): the first borrow, as written, and the type with every borrow made owned
/// (`&str` → `String`, a lifetime argument dropped), which is what to write instead.
struct Borrowed {
    /// "through `&str`" or "for `'a`".
    what: String,
    /// The user's type whose lifetime was dropped (`Text`), when one was.
    holder: Option<String>,
    owned: Type,
}

/// The borrow inside `ty`, when there is one. The top level's `&T` is the state or
/// `&ToolContext`, and is not looked at here; `Cow<'static, T>` owns what it holds.
fn borrowed_inside(ty: &Type) -> Option<Borrowed> {
    let mut found = None;
    let mut holder = None;
    let mut owned = ty.clone();
    own(&mut owned, &mut found, &mut holder);
    found.map(|what| Borrowed {
        what,
        holder,
        owned,
    })
}

/// Makes `ty` owned in place, recording the first borrow in `found` and the first type
/// that lost a lifetime in `holder`.
fn own(ty: &mut Type, found: &mut Option<String>, holder: &mut Option<String>) {
    match ty {
        Type::Reference(reference) => {
            found.get_or_insert_with(|| {
                format!("through `{}`", tidy(&Type::Reference(reference.clone())))
            });
            let replacement = match owned_form(&reference.elem) {
                Some(owned) => {
                    syn::parse_str::<Type>(&owned).unwrap_or_else(|_| (*reference.elem).clone())
                }
                None => (*reference.elem).clone(),
            };
            *ty = replacement;
            own(ty, found, holder);
        }
        Type::Path(path) => {
            if let Some(qself) = &mut path.qself {
                own(&mut qself.ty, found, holder);
            }
            for segment in &mut path.path.segments {
                let syn::PathArguments::AngleBracketed(generics) = &mut segment.arguments else {
                    continue;
                };
                let keeps_static = segment.ident == "Cow";
                let before = generics.args.len();
                let mut dropped = None;
                generics.args = std::mem::take(&mut generics.args)
                    .into_iter()
                    .filter(|argument| match argument {
                        syn::GenericArgument::Lifetime(lifetime)
                            if !(keeps_static && lifetime.ident == "static") =>
                        {
                            dropped.get_or_insert_with(|| format!("for `{lifetime}`"));
                            false
                        }
                        _ => true,
                    })
                    .collect();
                if let Some(dropped) = dropped {
                    found.get_or_insert(dropped);
                    holder.get_or_insert_with(|| segment.ident.to_string());
                }
                for argument in &mut generics.args {
                    if let syn::GenericArgument::Type(inner) = argument {
                        own(inner, found, holder);
                    }
                }
                if before > 0 && generics.args.is_empty() {
                    segment.arguments = syn::PathArguments::None;
                }
            }
        }
        Type::Tuple(tuple) => tuple
            .elems
            .iter_mut()
            .for_each(|elem| own(elem, found, holder)),
        Type::Array(array) => own(&mut array.elem, found, holder),
        Type::Slice(slice) => own(&mut slice.elem, found, holder),
        Type::Paren(paren) => own(&mut paren.elem, found, holder),
        Type::Group(group) => own(&mut group.elem, found, holder),
        _ => {}
    }
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

/// `ToolContext` taken by value or in a box, pointer or lock (which the model would
/// then send): `Some` with what to add to the fix (nothing, or that the wrapper goes).
fn context_by_value(ty: &Type) -> Option<&'static str> {
    if is_tool_context(ty) {
        return Some("");
    }
    let inner = wrapped(ty)?;
    is_tool_context(inner).then_some(", without the wrapper: the context lives as long as the call")
}

/// The `T` of `Arc<T>`, `Rc<T>`, `Box<T>`, `Mutex<T>` or `RwLock<T>` as written (any path
/// to them): the forms in which a handler might take the state or the context by value.
fn wrapped(ty: &Type) -> Option<&Type> {
    wrapped_in(ty, symbol::STATE_WRAPPERS)
}

/// The `T` of `Arc<T>`, `Rc<T>`, `Mutex<T>` or `RwLock<T>`: a parameter that shares or
/// locks its value, which no argument the model sends needs (it is the call's own).
fn shared(ty: &Type) -> Option<&Type> {
    wrapped_in(ty, symbol::SHARED_WRAPPERS)
}

/// A type as the user would write it: `quote`'s token spacing (`Arc < Tracker >`) removed.
pub fn tidy(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(' ', "")
        .replace(',', ", ")
}

fn wrapped_in<'a>(ty: &'a Type, wrappers: &[&str]) -> Option<&'a Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || !wrappers.iter().any(|name| last.ident == name) {
        return None;
    }
    let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
        return None;
    };
    match generics.args.first() {
        Some(syn::GenericArgument::Type(inner)) if generics.args.len() == 1 => Some(inner),
        _ => None,
    }
}

fn is_tool_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == symbol::TOOL_CONTEXT))
}
