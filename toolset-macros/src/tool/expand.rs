//! The code `#[tool]` writes for a checked [`Tool`]: the handler fn as the user wrote it,
//! the typed arguments struct that shares its name, and the `Tool` / `ToolHandler` impls
//! the set dispatches through. Generated code uses absolute paths only.

use super::item::UserItem;
use super::model::{Arg, Handler, Kind, Param, SentParam, Tier, Tool};
use super::valid::tidy;
use crate::runtime::Runtime;
use crate::symbol;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// The expansion of a checked tool, `item` re-emitted first.
pub fn tool(item: &UserItem, tool: &Tool) -> TokenStream {
    match &tool.kind {
        Kind::Handler(handler) => expand_handler(item, tool, handler),
        Kind::ProposeOnly => expand_propose_only(item, tool),
    }
}

fn expand_handler(clean: &UserItem, tool: &Tool, handler: &Handler) -> TokenStream {
    let rt = &tool.runtime;
    let ident = &tool.ident;
    let vis = &tool.vis;
    let whole_args = handler.whole_args();

    // Fields with doc comments only (the common case) get a `JsonSchema` impl listing them
    // for the library's one builder; fields with `#[serde]` or `#[schemars]` attributes,
    // which only schemars' derive reads in full, keep the derive.
    let listed_schema = match whole_args {
        Some(_) => None,
        None => listed_schema(ident, &handler.args, rt),
    };
    let derived_schema = listed_schema.is_none();
    let checks: Vec<ArgumentChecks> = handler
        .args
        .iter()
        .map(|arg| argument_checks(arg, rt, derived_schema))
        .collect();
    let bounded: Vec<syn::Type> = checks
        .iter()
        .filter_map(|checks| checks.deserialize_bound.clone())
        .collect();

    // The arguments struct shares the fn's name: fns live in the value namespace and
    // braced structs only in the type namespace, so `toolset![set_due_date]` can name the
    // tool by the one identifier the user wrote.
    let args_struct = match whole_args {
        Some(_) => {
            let doc = format!(
                "The tool [`{ident}`](fn@{ident}), which takes its arguments as one object."
            );
            quote! {
                #[doc = #doc]
                #[allow(non_camel_case_types, dead_code)]
                #vis struct #ident {}
            }
        }
        None => {
            let fields = handler.args.iter().zip(&checks).map(|(arg, checks)| {
                let Arg {
                    ident, ty, attrs, ..
                } = arg;
                let checked = &checks.field_attrs;
                // With the derive (`listed_schema` is `None`), the annotation goes
                // through it; a listed schema carries it itself.
                let header = arg
                    .mcp_header
                    .as_ref()
                    .filter(|_| derived_schema)
                    .map(|header| quote!(#[schemars(extend("x-mcp-header" = #header))]));
                quote!(#(#attrs)* #checked #header pub #ident: #ty,)
            });
            let bound = deserialize_bound(&bounded, rt);
            let serde = rt.within("__private::serde");
            let schemars = rt.within("__private::schemars");
            // Written for rustdoc only: the derives would otherwise each read it, schemars
            // into a title and description the input schema drops (`schema::generate`).
            let doc = format!(
                "The arguments of the tool [`{ident}`](fn@{ident}), as the model passes them."
            );
            let (derive_schema, schemars_crate) = if derived_schema {
                (
                    quote!(, #rt::__private::schemars::JsonSchema),
                    quote!(#[schemars(crate = #schemars)]),
                )
            } else {
                (quote!(), quote!())
            };
            quote! {
                #[cfg_attr(doc, doc = #doc)]
                #[allow(non_camel_case_types, missing_docs)]
                #[derive(#rt::__private::serde::Deserialize #derive_schema)]
                #[serde(crate = #serde, deny_unknown_fields)]
                #bound
                #schemars_crate
                #vis struct #ident {
                    #(#fields)*
                }
            }
        }
    };
    // `Tool::Args: DeserializeOwned` is where an argument type that does not deserialize is
    // reported (see `deserialize_bound`): spanned at the first checked argument's type.
    let args_type = match (whole_args, bounded.first()) {
        (Some(ty), _) => quote!(#ty),
        (None, Some(first)) => quote_spanned!(first.span()=> Self),
        (None, None) => quote!(Self),
    };
    let output = &handler.output;
    let output_span = output.span();
    // Spanned at the `#[args]` type: the error for a type without `JsonSchema` lands there.
    let input_schema = match whole_args {
        Some(ty) => {
            let rt = rt.at(ty.span());
            quote_spanned!(ty.span()=> #rt::__private::input_schema_of::<#ty>)
        }
        None => quote!(#rt::__private::input_schema_of::<Self>),
    };
    // A list `(A0, (A1, (.., ())))`, which the set's state check searches at any length.
    // Each type once, at its first parameter: the set's probe infers the position of the
    // one that holds the state, which two parameters of that type would make ambiguous.
    let mut distinct: Vec<&SentParam> = Vec::new();
    for param in &handler.sent {
        if !distinct
            .iter()
            .any(|seen| tidy(&seen.ty) == tidy(&param.ty))
        {
            distinct.push(param);
        }
    }
    let sent_types = distinct.iter().rev().fold(quote!(()), |rest, param| {
        let ty = &param.ty;
        quote!((#ty, #rest))
    });
    let rt_at_output = rt.at(output_span);
    let tool_impl = tool_impl(
        tool,
        &args_type,
        &sent_types,
        input_schema,
        Some(
            quote_spanned!(output_span=> <#output as #rt_at_output::output::IntoToolOutput>::output_schema),
        ),
    );
    let state_not_sent = state_not_sent(tool, &distinct);
    // A mirrored argument is a string, an integer or a bool (what MCP allows an
    // `x-mcp-header` on): checked at the argument's type, which is where the error lands.
    let header_checks = handler
        .args
        .iter()
        .filter(|arg| arg.mcp_header.is_some())
        .map(|arg| {
            let ty = &arg.ty;
            let rt = rt.at(ty.span());
            quote_spanned!(ty.span()=> #rt::__private::mcp_header_argument::<#ty>();)
        });
    let header_checks = quote!(#(#header_checks)*);
    let header_checks =
        (!header_checks.is_empty()).then(|| quote!(const _: () = { #header_checks };));
    let constraint_checks = handler
        .args
        .iter()
        .filter_map(|arg| constraint_check(tool, arg, rt));
    let constraint_checks = quote!(#(#constraint_checks)*);

    let ctx = if handler.takes_context() {
        format_ident!("ctx")
    } else {
        format_ident!("_ctx")
    };
    let call_args = handler.params.iter().map(|param| match param {
        Param::State => quote!(state),
        Param::Context => quote!(ctx),
        Param::Arg(field) => quote!(args.#field),
        Param::WholeArgs(_) => quote!(args),
    });
    // Converted where the type is concrete, so that a `Result` whose error is a
    // `std::error::Error` keeps it as the source (`__private::Returned`).
    let into_output = quote_spanned! {output_span=>
        {
            #[allow(unused_imports)] // One of the two converts; which depends on the type.
            use #rt_at_output::__private::{ConvertsOutput as _, KeepsSource as _};
            #[allow(clippy::let_unit_value)] // A handler returning `()`.
            let output = (&#rt_at_output::__private::Returned::of(&output)).conversion().pass(output);
            #rt_at_output::output::IntoToolOutput::into_tool_output(output)
        }
    };
    let (impl_head, state_type, state_param, take_state) = match &handler.state {
        Some(state) => {
            let ty = &state.ty;
            let take = if state.mutable {
                quote! {
                    let ::std::option::Option::Some(state) = state.exclusive() else {
                        return ::std::result::Result::Err(#rt::__private::exclusive_access_required(<Self as #rt::set::Tool>::NAME));
                    };
                }
            } else {
                quote!(let state = state.shared();)
            };
            (quote!(impl), quote!(#ty), format_ident!("state"), take)
        }
        None => (
            quote!(impl<S: ::std::marker::Send + ::std::marker::Sync>),
            quote!(S),
            format_ident!("_state"),
            quote!(),
        ),
    };
    let args_param = if handler.takes_args() {
        format_ident!("args")
    } else {
        format_ident!("_args")
    };

    quote! {
        #clean

        #args_struct

        const _: () = {
            #listed_schema

            #tool_impl

            #state_not_sent

            #header_checks

            #constraint_checks

            #[automatically_derived]
            #impl_head #rt::set::ToolHandler<#state_type> for #ident {
                fn call<'a>(
                    #state_param: #rt::set::Access<'a, #state_type>,
                    #ctx: &'a #rt::ToolContext,
                    #args_param: <Self as #rt::set::Tool>::Args,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<#rt::ToolOutput, #rt::ToolError>,
                > + ::std::marker::Send + 'a
                where
                    #state_type: 'a,
                {
                    async move {
                        #take_state
                        let output: #output = #ident(#(#call_args),*).await;
                        #into_output
                    }
                }
            }
        };
    }
}

fn expand_propose_only(clean: &UserItem, tool: &Tool) -> TokenStream {
    let rt = &tool.runtime;
    let ident = &tool.ident;
    let rt_at_ident = rt.at(ident.span());
    // `Args` and the schema named by the struct's identifier: a struct missing a derive is
    // reported there, once by each of `Tool::Args: DeserializeOwned` and `input_schema_of`.
    let tool_impl = tool_impl(
        tool,
        &quote!(#ident),
        &quote!(()),
        quote_spanned!(ident.span()=> #rt_at_ident::__private::input_schema_of::<#ident>),
        None,
    );
    let no_state_sent = no_state_sent(ident, rt);
    quote! {
        #clean

        const _: () = {
            #tool_impl

            // Unreachable through the gate: a propose-only call is never approved to run.
            // `ToolHandler::call`'s provided body says so.
            #[automatically_derived]
            impl<S> #rt::set::ToolHandler<S> for #ident {}

            #no_state_sent
        };
    }
}

/// `StateNotSent` of a tool that sends no parameter: its whole arguments struct is the
/// call's (a propose-only tool), or it has none (the placeholder beside a declaration's
/// errors).
pub(super) fn no_state_sent(ident: &syn::Ident, rt: &Runtime) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl<Set, const STATE_AT: usize> #rt::__private::StateNotSent<Set, STATE_AT> for #ident {
            const CHECK: () = ();
        }
    }
}

/// `StateNotSent`: `toolset!` gives as `STATE_AT` the position (from 1) of the first sent
/// parameter that holds the set's per-run state, and the check fails there, spanned at
/// that parameter's type, naming the state to borrow (`SetState`). (Only `toolset!` knows
/// the state type; only `#[tool]` knows the parameters and where they are written.)
fn state_not_sent(tool: &Tool, sent: &[&SentParam]) -> TokenStream {
    let rt = &tool.runtime;
    let ident = &tool.ident;
    let read_only = tool.tier == Tier::ReadOnly;
    let checks = sent.iter().enumerate().map(|(index, param)| {
        let at = proc_macro2::Literal::usize_unsuffixed(index + 1);
        let ty = &param.ty;
        let marked = if param.whole { "#[args] " } else { "" };
        let name = &param.name;
        let head = format!("`{marked}{name}: {}`", tidy(ty));
        let rt = rt.at(ty.span());
        quote_spanned! {ty.span()=>
            if STATE_AT == #at {
                #rt::__private::state_sent::<Set>(#head, #name, #read_only)
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl<Set: #rt::__private::SetState, const STATE_AT: usize> #rt::__private::StateNotSent<Set, STATE_AT> for #ident {
            const CHECK: () = {
                #(#checks)*
            };
        }
    }
}

/// What makes a missing derive on an argument's type one error, at that type, saying
/// which derive to add (the runtime traits' `on_unimplemented` messages).
struct ArgumentChecks {
    /// The field's extra attributes, under schemars' derive only: `#[schemars(schema_with)]`
    /// through `__private::argument_schema`, whose bound explains a missing `JsonSchema`.
    field_attrs: TokenStream,
    /// The type to bound the arguments struct's `Deserialize` impl by, as
    /// `T: __private::DeserializeArgument<'de>`: serde's derived code then type-checks
    /// under that bound, and the one error is the bound's, at the impl's use.
    deserialize_bound: Option<syn::Type>,
}

/// The checks of one argument. With a listed schema (`listed_schema`: no field has a
/// `#[serde]` or `#[schemars]` attribute) only the deserialize bound is needed; with the
/// derived one, fields whose user attributes take over deserializing or the schema
/// (`with`, `flatten`, …) are not checked for what those take over.
///
/// Deserializing is checked with a bound, not by routing each field through
/// `#[serde(deserialize_with)]`: serde writes a wrapper type and impl per routed field in
/// each of its visitors, which cost a 100-tool crate about as much as the rest of its
/// expansion. The schema stays routed: schemars writes far less for it, and a bound cannot
/// be written (a `JsonSchema` bound has no lifetime, so on a concrete type it is a "trivial
/// bound" rustc rejects).
fn argument_checks(arg: &Arg, rt: &Runtime, derived_schema: bool) -> ArgumentChecks {
    if !derived_schema {
        // No user attribute: serde deserializes the field (a missing `Option` as `None`),
        // and the listed schema names the type through `argument_schema`.
        let ty = &arg.ty;
        return ArgumentChecks {
            field_attrs: TokenStream::new(),
            deserialize_bound: Some(option_inner(ty).unwrap_or(ty).clone()),
        };
    }
    let unchecked = ArgumentChecks {
        field_attrs: TokenStream::new(),
        deserialize_bound: None,
    };
    let keys = |name: &str| -> Option<Vec<String>> {
        let mut keys = Vec::new();
        for attr in arg.attrs.iter().filter(|attr| attr.path().is_ident(name)) {
            keys.extend(attribute_keys(attr)?);
        }
        Some(keys)
    };
    // Attributes we cannot read are serde's or schemars' to report; add nothing.
    let (Some(serde), Some(schemars)) = (keys(symbol::SERDE), keys(symbol::SCHEMARS)) else {
        return unchecked;
    };
    let has =
        |keys: &[String], names: &[&str]| keys.iter().any(|key| names.contains(&key.as_str()));
    let ty = &arg.ty;
    // An `Option<T>`'s check is on `T`, so the error names and underlines the type to fix.
    let inner = option_inner(ty);
    let checked = inner.unwrap_or(ty);
    let serde_deserializes = !has(&serde, symbol::SERDE_TAKES_OVER_DESERIALIZING);
    let deserialize_bound = serde_deserializes.then(|| checked.clone());

    let mut serde_items = Vec::new();
    // With `schema_with`, schemars no longer sees that an `Option` may be left out:
    // `default` says so (to serde too, which already reads a missing `Option` as `None`),
    // and `skip_serializing_if` keeps schemars from writing `"default": null`.
    if inner.is_some() && serde_deserializes && !has(&serde, &["default"]) {
        serde_items.push(quote!(default));
        if !has(&serde, &["skip_serializing_if"]) {
            serde_items.push(quote!(
                skip_serializing_if = "::std::option::Option::is_none"
            ));
        }
    }
    let optional_kept = inner.is_none() || !serde_items.is_empty() || has(&serde, &["default"]);
    let mut field_attrs = if serde_items.is_empty() {
        TokenStream::new()
    } else {
        quote!(#[serde(#(#serde_items),*)])
    };
    if optional_kept
        && !has(&serde, symbol::SERDE_TAKES_OVER_SCHEMA)
        && !has(&schemars, symbol::SCHEMARS_TAKES_OVER_SCHEMA)
    {
        let function = if inner.is_some() {
            "optional_argument_schema"
        } else {
            "argument_schema"
        };
        let path = syn::LitStr::new(
            &format!(
                "{}::<{}>",
                rt.within(&format!("__private::{function}")),
                quote!(#checked)
            ),
            checked.span(),
        );
        field_attrs.extend(quote!(#[schemars(schema_with = #path)]));
    }
    ArgumentChecks {
        field_attrs,
        deserialize_bound,
    }
}

/// The items of one `#[serde(...)]` or `#[schemars(...)]` attribute; `None` when its
/// arguments are not a list of meta items (serde or schemars reports it).
fn attribute_metas(attr: &syn::Attribute) -> Option<Punctuated<syn::Meta, syn::Token![,]>> {
    attr.parse_args_with(Punctuated::parse_terminated).ok()
}

/// The keys of one `#[serde(...)]` or `#[schemars(...)]` attribute (`with`, `range`, …).
fn attribute_keys(attr: &syn::Attribute) -> Option<Vec<String>> {
    Some(
        attribute_metas(attr)?
            .iter()
            .filter_map(|meta| meta.path().get_ident().map(ToString::to_string))
            .collect(),
    )
}

/// An assertion, at the attribute, that this build of toolset checks the constraint an
/// argument declares with `#[schemars(range(..))]` and the like (`symbol::SCHEMARS_CONSTRAINTS`).
/// Without toolset's `constraints` feature the gate refuses such a tool at run time, never
/// running it unchecked; the assertion makes that a compile error that says what to turn
/// on. A constraint that comes from the argument's type (its own `#[schemars]` attributes,
/// a `HashSet`'s `uniqueItems`) is not visible here and stays a run-time refusal, which
/// `check_declarations` reports.
fn constraint_check(tool: &Tool, arg: &Arg, rt: &Runtime) -> Option<TokenStream> {
    // `inner(..)` applies its keys to an array's items: `inner(length(max = 20))`.
    fn constraint_key(metas: &Punctuated<syn::Meta, syn::Token![,]>) -> Option<String> {
        metas.iter().find_map(|meta| {
            let key = meta.path().get_ident()?.to_string();
            if symbol::SCHEMARS_CONSTRAINTS.contains(&key.as_str()) {
                return Some(key);
            }
            let syn::Meta::List(list) = meta else {
                return None;
            };
            if key != symbol::SCHEMARS_INNER {
                return None;
            }
            constraint_key(&list.parse_args_with(Punctuated::parse_terminated).ok()?)
        })
    }
    let (attr, key) = arg
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident(symbol::SCHEMARS))
        .find_map(|attr| Some((attr, constraint_key(&attribute_metas(attr)?)?)))?;
    let message = format!(
        "the argument `{}` of the tool `{}` declares a schema constraint (`{key}` in its \
         `#[schemars]` attribute) that only toolset's `constraints` feature checks, and it is \
         off, so the gate would refuse every call of the tool; turn the feature on: toolset = \
         {{ version = \"..\", features = [\"constraints\"] }}",
        arg.ident, tool.name
    );
    // `assert!` reads its message as a format string: its braces are escaped.
    let message = message.replace('{', "{{").replace('}', "}}");
    let span = attr.span();
    let rt = rt.at(span);
    Some(
        quote_spanned!(span=> const _: () = ::core::assert!(#rt::__private::CONSTRAINTS, #message);),
    )
}

/// The arguments struct's `JsonSchema` impl when every field carries doc comments only:
/// one `__private::Argument` per field (its name, its doc split into title and description
/// as schemars splits it, whether it may be left out, and its type's schema through
/// `argument_schema`, whose bound explains a missing derive at the type), for the library's
/// `arguments_schema` to build the object schema schemars' derive would. A few lines a
/// field where the derive expands about forty. `None` when a field has another attribute
/// (`#[serde]`, `#[schemars]`) or a doc that is not a literal: the derive reads those.
fn listed_schema(ident: &syn::Ident, args: &[Arg], rt: &Runtime) -> Option<TokenStream> {
    let mut listed = Vec::with_capacity(args.len());
    for arg in args {
        let mut lines = Vec::new();
        for attr in &arg.attrs {
            // Anything but a literal doc line (`#[serde]`, `#[schemars]`, `#[doc = macro!()]`)
            // is the derive's to read.
            let line = crate::doc::doc_value(attr)?;
            lines.push(line.strip_prefix(' ').map(str::to_owned).unwrap_or(line));
        }
        let (title, description) = title_and_description(&lines.join("\n"));
        let name = syn::ext::IdentExt::unraw(&arg.ident).to_string();
        let ty = &arg.ty;
        let (kind, function, checked) = match option_inner(ty) {
            Some(inner) => (quote!(optional), quote!(optional_argument_schema), inner),
            None => (quote!(required), quote!(argument_schema), ty),
        };
        let rt_at = rt.at(checked.span());
        let schema = quote_spanned!(checked.span()=> #rt_at::__private::#function::<#checked>);
        let title = (!title.is_empty()).then(|| quote!(.title(#title)));
        let description = (!description.is_empty()).then(|| quote!(.description(#description)));
        let header = arg
            .mcp_header
            .as_ref()
            .map(|header| quote!(.mcp_header(#header)));
        listed.push(
            quote!(#rt::__private::Argument::#kind(#name, #schema) #title #description #header),
        );
    }
    let name = ident.to_string();
    let schemars = quote!(#rt::__private::schemars);
    Some(quote! {
        #[automatically_derived]
        impl #schemars::JsonSchema for #ident {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::std::concat!(::std::module_path!(), "::", #name))
            }

            fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #rt::__private::arguments_schema(generator, &[#(#listed),*])
            }
        }
    })
}

/// A doc comment's title and description as schemars' derive splits them
/// (`schemars::_private::get_title_and_description`): the text trimmed; when it starts with
/// `#`, its first line without the `#`s is the title and the rest the description.
fn title_and_description(doc: &str) -> (String, String) {
    let doc = doc.trim_ascii();
    if !doc.starts_with('#') {
        return (String::new(), doc.to_owned());
    }
    let (first, rest) = doc.split_once('\n').unwrap_or((doc, ""));
    (
        first.trim_start_matches('#').trim_ascii().to_owned(),
        rest.trim_ascii().to_owned(),
    )
}

/// `#[serde(bound(deserialize = "A: DeserializeArgument<'de>, ..."))]` for the arguments
/// struct, or nothing when no argument is checked. The bound carries 'de, so it is not a
/// "trivial bound": serde's generated code type-checks under it, and a type that does not
/// deserialize is reported once, where the `Deserialize` impl is used (`Tool::Args`).
fn deserialize_bound(types: &[syn::Type], rt: &Runtime) -> TokenStream {
    let Some(first) = types.first() else {
        return quote!();
    };
    let predicates: Vec<String> = types
        .iter()
        .map(|ty| {
            format!(
                "{}: {}<'de>",
                quote!(#ty),
                rt.within("__private::DeserializeArgument")
            )
        })
        .collect();
    let bound = syn::LitStr::new(&predicates.join(", "), first.span());
    quote!(#[serde(bound(deserialize = #bound))])
}

/// The `T` of `Option<T>` as written (`Option`, `std::option::Option`, …).
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
        return None;
    };
    match generics.args.first() {
        Some(syn::GenericArgument::Type(inner))
            if path.qself.is_none() && last.ident == "Option" && generics.args.len() == 1 =>
        {
            Some(inner)
        }
        _ => None,
    }
}

/// `impl Tool`: the metadata every tool has. `ToolMeta` is built with its `const fn`
/// builder, one call per key that differs from the default, so the runtime can add keys.
fn tool_impl(
    tool: &Tool,
    args_type: &TokenStream,
    sent: &TokenStream,
    input_schema: TokenStream,
    output_schema: Option<TokenStream>,
) -> TokenStream {
    let rt = &tool.runtime;
    let ident = &tool.ident;
    let name = &tool.name;
    let description = &tool.description;
    let tier = tier_path(tool.tier, rt);
    let mut keys = Vec::new();
    if let Some(title) = &tool.title {
        keys.push(quote!(.title(#title)));
    }
    if matches!(tool.kind, Kind::ProposeOnly) {
        keys.push(quote!(.propose_only()));
    }
    if tool.deferred {
        keys.push(quote!(.deferred()));
    }
    if tool.late_result {
        keys.push(quote!(.late_result()));
    }
    if tool.idempotent {
        keys.push(quote!(.idempotent()));
    }
    if tool.reads_private {
        keys.push(quote!(.reads_private()));
    }
    if tool.reads_untrusted {
        keys.push(quote!(.reads_untrusted()));
    }
    if tool.sends_outside {
        keys.push(quote!(.sends_outside()));
    }
    if tool.preview.is_some() {
        keys.push(quote!(.has_preview()));
    }
    if matches!(&tool.kind, Kind::Handler(handler) if handler.takes_context()) {
        keys.push(quote!(.takes_context()));
    }
    if let Some(millis) = tool.timeout_ms {
        keys.push(quote!(.timeout_ms(#millis)));
    }
    if let Some(output_schema) = output_schema {
        keys.push(quote!(.output_schema(#output_schema)));
    }
    if !tool.examples.is_empty() {
        let examples = &tool.examples;
        keys.push(quote!(.examples(&[#(#examples),*])));
    }
    let preview = tool.preview.as_ref().map(|path| {
        let rt = rt.at(path.span());
        quote_spanned! {path.span()=>
            fn preview(args: &<Self as #rt::set::Tool>::Args) -> ::std::option::Option<::std::string::String> {
                ::std::option::Option::Some(::std::convert::Into::into(#path(args)))
            }
        }
    });
    // The path's type is checked against the one signature an escalation has, spanned at
    // the path, so a wrong one is reported there with the signature to write.
    let escalate = tool.escalate.as_ref().map(|path| {
        let rt_at_path = rt.at(path.span());
        let signature = quote_spanned! {path.span()=>
            fn(&#args_type) -> ::std::option::Option<#rt_at_path::Escalation>
        };
        quote! {
            fn escalate(args: &<Self as #rt::set::Tool>::Args) -> ::std::option::Option<#rt::Escalation> {
                let escalate: #signature = #path;
                escalate(args)
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #rt::set::Tool for #ident {
            type Args = #args_type;
            type Sent = #sent;
            const NAME: &'static str = #name;
            const META: #rt::__private::ToolMeta =
                #rt::__private::ToolMeta::new(#name, #description, #tier, #input_schema)
                    #(#keys)*;
            #preview
            #escalate
        }
    }
}

/// `::toolset::Tier::ReadOnly` and so on.
fn tier_path(tier: Tier, rt: &Runtime) -> TokenStream {
    let variant = format_ident!("{}", tier.variant_name(), span = Span::call_site());
    quote!(#rt::Tier::#variant)
}
