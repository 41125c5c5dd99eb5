//! `toolset!`: parses `pub Name<State> = [tool, ...];` and writes the set type, its typed
//! call and name enums, the static specs, the dispatch `match`, and the compile-time
//! checks that tie them together (one name per tool, one state type per set).

use crate::ast::camel_case;
use crate::doc::doc_text;
use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Path, Token, Type, Visibility, bracketed};

/// One `Name<State> = [...]` declaration.
struct SetDecl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    ident: Ident,
    state: Option<Type>,
    bracket: syn::token::Bracket,
    entries: Punctuated<Path, Token![,]>,
}

struct Input {
    sets: Vec<SetDecl>,
}

impl Parse for SetDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let ident: Ident = input.parse()?;
        let state = if input.peek(Token![<]) {
            input.parse::<Token![<]>()?;
            let state: Type = input.parse()?;
            input.parse::<Token![>]>()?;
            Some(state)
        } else {
            None
        };
        if !input.peek(Token![=]) {
            return Err(input.error(format!(
                "expected `=` and a list of tools: `{ident}<State> = [tool_a, tool_b];`"
            )));
        }
        input.parse::<Token![=]>()?;
        let content;
        let bracket = bracketed!(content in input);
        let entries = content.parse_terminated(Path::parse_mod_style, Token![,])?;
        Ok(SetDecl {
            attrs,
            vis,
            ident,
            state,
            bracket,
            entries,
        })
    }
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut sets = Vec::new();
        while !input.is_empty() {
            sets.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![;]>()?;
        }
        if sets.is_empty() {
            return Err(input
                .error("declare a set: `toolset! { pub MyTools<MyState> = [tool_a, tool_b]; }`"));
        }
        Ok(Input { sets })
    }
}

/// Entry point of `toolset!`.
pub fn expand(input: TokenStream) -> TokenStream {
    match syn::parse2::<Input>(input) {
        Ok(input) => input.sets.iter().map(expand_set).collect(),
        Err(error) => error.to_compile_error(),
    }
}

/// The variant name of an entry: `set_due_date` → `SetDueDate`.
fn variant(entry: &Path) -> Ident {
    let last = entry.segments.last().map(|segment| &segment.ident);
    let name = last
        .map(|ident| camel_case(&ident.to_string()))
        .unwrap_or_default();
    format_ident!("{}", name, span = entry.span())
}

fn check(set: &SetDecl, errors: &mut Errors) {
    if set.entries.is_empty() {
        errors.push(syn::Error::new(
            set.bracket.span.join(),
            format!(
                "the toolset `{}` is empty: list its tools, e.g. `{}<State> = [search, set_due_date];`",
                set.ident, set.ident
            ),
        ));
    }
    let mut seen: Vec<(Ident, &Path)> = Vec::new();
    for entry in &set.entries {
        let variant = variant(entry);
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == variant) {
            let first = quote!(#first).to_string().replace(' ', "");
            let this = quote!(#entry).to_string().replace(' ', "");
            let message = if first == this {
                format!(
                    "`{this}` is listed twice in `{}`: list each tool once",
                    set.ident
                )
            } else {
                format!(
                    "`{this}` and `{first}` would both be the call variant `{variant}` of `{}`: \
                     a set cannot hold two tools with the same identifier. Rename one of the handlers",
                    set.ident
                )
            };
            errors.at(entry, message);
        } else {
            seen.push((variant, entry));
        }
    }
}

fn expand_set(set: &SetDecl) -> TokenStream {
    let mut errors = Errors::default();
    check(set, &mut errors);
    if !errors.is_empty() {
        let compile_errors = errors.to_compile_errors();
        // Still declare the set type so code naming it reports no secondary errors.
        let vis = &set.vis;
        let ident = &set.ident;
        return quote! {
            #compile_errors
            #vis struct #ident;
        };
    }

    let SetDecl { vis, ident, .. } = set;
    let state = match &set.state {
        Some(state) => quote!(#state),
        None => quote!(()),
    };
    let set_name = ident.to_string();
    let call_enum = format_ident!("{}Call", ident);
    let name_enum = format_ident!("{}Name", ident);
    let entries: Vec<&Path> = set.entries.iter().collect();
    let variants: Vec<Ident> = entries.iter().map(|entry| variant(entry)).collect();
    let count = entries.len();

    let doc = match doc_text(&set.attrs) {
        Some(_) => quote!(),
        None => {
            let text = format!("The tool set `{set_name}`, generated by `toolset!`.");
            quote!(#[doc = #text])
        }
    };
    let attrs = &set.attrs;
    let call_doc = format!("A call to one of [`{set_name}`]'s tools, holding its typed arguments.");
    let name_doc =
        format!("The name of one of [`{set_name}`]'s tools; a misspelled name does not compile.");

    // Every use of an entry is a whole expression (or match arm) spanned at the entry, so a
    // mistake (a struct without #[tool], a tool taking another state) is reported on what
    // the user wrote, and rustc folds the identical reports into one.
    let spanned = |item: TokenStream| -> Vec<TokenStream> {
        entries
            .iter()
            .map(|entry| quote_spanned!(entry.span()=> <#entry as ::toolset::Tool>::#item))
            .collect()
    };
    let tool_metas = spanned(quote!(META));
    let tool_names = spanned(quote!(NAME));
    // `#call_enum::#variant` paths re-spanned at the entry too: a path spanning the set's
    // name and the entry would underline the whole declaration.
    let call_enum_at = |entry: &Path| Ident::new(&call_enum.to_string(), entry.span());
    let parse_arms = entries.iter().zip(&variants).map(|(entry, variant)| {
        let call_enum = call_enum_at(entry);
        quote_spanned! {entry.span()=>
            #name_enum::#variant => <<#entry as ::toolset::Tool>::Args as ::toolset::__private::serde::Deserialize<'de>>::deserialize(deserializer).map(#call_enum::#variant),
        }
    });
    let name_of_arms = entries.iter().zip(&variants).map(|(entry, variant)| {
        let call_enum = call_enum_at(entry);
        quote_spanned!(entry.span()=> #call_enum::#variant(_) => #name_enum::#variant,)
    });
    let preview_arms = entries.iter().zip(&variants).map(|(entry, variant)| {
        let call_enum = call_enum_at(entry);
        quote_spanned! {entry.span()=>
            #call_enum::#variant(args) => <#entry as ::toolset::Tool>::preview(args),
        }
    });
    let dispatch_arms = entries.iter().zip(&variants).map(|(entry, variant)| {
        let call_enum = call_enum_at(entry);
        quote_spanned! {entry.span()=>
            #call_enum::#variant(args) => <#entry as ::toolset::ToolHandler<#state>>::call(state, ctx, args).await,
        }
    });

    let call_variants = entries.iter().zip(&variants).map(|(entry, variant)| {
        let doc = format!(
            "A call to `{}`.",
            quote!(#entry).to_string().replace(' ', "")
        );
        let args = quote_spanned!(entry.span()=> <#entry as ::toolset::Tool>::Args);
        quote!(#[doc = #doc] #variant(#args),)
    });
    let name_variants = entries.iter().zip(&variants).map(|(entry, variant)| {
        let doc = format!(
            "The tool `{}`.",
            quote!(#entry).to_string().replace(' ', "")
        );
        quote!(#[doc = #doc] #variant,)
    });
    // Names are only known in constant evaluation (`#[tool(name = "...")]` overrides), so
    // the check is a const assertion per entry, spanned at it, naming both entries.
    let entry_names: Vec<String> = entries
        .iter()
        .map(|entry| quote!(#entry).to_string().replace(' ', ""))
        .collect();
    let entries_const =
        (count > 1).then(|| quote!(const ENTRIES: [&str; #count] = [#(#entry_names),*];));
    let duplicate_checks = entries.iter().enumerate().skip(1).map(|(index, entry)| {
        quote_spanned! {entry.span()=>
            const _: () = if let ::std::option::Option::Some(first) = ::toolset::__private::earlier_same_name(&NAMES, #index) {
                ::std::panic!("{}", ::toolset::__private::duplicate_name_message(#set_name, &ENTRIES, &NAMES, first, #index).as_str());
            };
        }
    });

    quote! {
        #(#attrs)*
        #doc
        #[derive(Debug, Clone, Copy)]
        #vis struct #ident;

        #[doc = #call_doc]
        #vis enum #call_enum {
            #(#call_variants)*
        }

        #[doc = #name_doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #vis enum #name_enum {
            #(#name_variants)*
        }

        const _: () = {
            static SPECS: [::toolset::ToolSpec; #count] = [
                #(::toolset::ToolSpec::__new(#tool_metas),)*
            ];
            const NAMES: [&str; #count] = [#(#tool_names),*];
            #entries_const
            #(#duplicate_checks)*

            #[automatically_derived]
            impl ::toolset::ToolName for #name_enum {
                const ALL: &'static [Self] = &[#(#name_enum::#variants),*];

                fn as_str(self) -> &'static str {
                    NAMES[self as usize]
                }

                fn index(self) -> usize {
                    self as usize
                }

                fn from_name(name: &str) -> ::std::option::Option<Self> {
                    match name {
                        #(#tool_names => ::std::option::Option::Some(#name_enum::#variants),)*
                        _ => ::std::option::Option::None,
                    }
                }
            }

            #[automatically_derived]
            impl ::std::fmt::Display for #name_enum {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(::toolset::ToolName::as_str(*self))
                }
            }

            #[automatically_derived]
            impl ::toolset::ToolSet for #ident {
                type State = #state;
                type Call = #call_enum;
                type Name = #name_enum;

                const NAME: &'static str = #set_name;

                fn specs() -> &'static [::toolset::ToolSpec] {
                    &SPECS
                }

                fn render_cache() -> &'static ::toolset::__private::RenderCache {
                    static RENDERED: ::toolset::__private::RenderCache = ::toolset::__private::RenderCache::new();
                    &RENDERED
                }

                fn deserialize_call<'de, D: ::toolset::__private::serde::Deserializer<'de>>(
                    name: #name_enum,
                    deserializer: D,
                ) -> ::std::result::Result<#call_enum, D::Error> {
                    match name {
                        #(#parse_arms)*
                    }
                }

                fn name_of(call: &#call_enum) -> #name_enum {
                    match call {
                        #(#name_of_arms)*
                    }
                }

                fn preview(call: &#call_enum) -> ::std::option::Option<::std::string::String> {
                    match call {
                        #(#preview_arms)*
                    }
                }

                fn dispatch<'a>(
                    state: ::toolset::Access<'a, #state>,
                    ctx: &'a ::toolset::ToolContext,
                    call: #call_enum,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
                > + ::std::marker::Send + 'a {
                    async move {
                        match call {
                            #(#dispatch_arms)*
                        }
                    }
                }
            }

            #[allow(dead_code)]
            impl #ident {
                /// The specs of every tool in the set, in declared order.
                pub fn specs() -> &'static [::toolset::ToolSpec] {
                    &SPECS
                }

                /// The spec of the tool the model calls `name`.
                pub fn spec(name: &str) -> ::std::option::Option<&'static ::toolset::ToolSpec> {
                    <#name_enum as ::toolset::ToolName>::from_name(name).map(|name| &SPECS[name as usize])
                }

                /// Verifies the model's whole program and splits it by tier: calls at or below
                /// `autonomy` are approved, the rest become proposals. One bad call rejects all.
                pub fn gate(
                    calls: impl ::std::iter::IntoIterator<Item = ::toolset::ToolCall>,
                    autonomy: ::toolset::Autonomy,
                ) -> ::std::result::Result<::toolset::Plan<Self>, ::toolset::Rejected> {
                    ::toolset::gate::<Self>(calls, &::toolset::Policy::new(autonomy))
                }

                /// Like [`gate`](Self::gate), under a per-request policy that can only tighten.
                pub fn gate_with(
                    calls: impl ::std::iter::IntoIterator<Item = ::toolset::ToolCall>,
                    policy: &::toolset::Policy<Self>,
                ) -> ::std::result::Result<::toolset::Plan<Self>, ::toolset::Rejected> {
                    ::toolset::gate::<Self>(calls, policy)
                }

                /// Runs the plan's approved calls against `state`: an outcome for every call.
                pub async fn apply(
                    state: &mut #state,
                    ctx: &::toolset::ToolContext,
                    plan: ::toolset::Plan<Self>,
                ) -> ::toolset::Report {
                    ::toolset::apply::<Self>(state, ctx, plan).await
                }

                /// Turns a human-approved proposal into a runnable plan, or into typed arguments
                /// for the host when the tool is propose-only. Re-verifies the call, and refuses
                /// if the proposal changed after `approval` was given.
                pub fn approve(
                    proposal: &::toolset::Proposal,
                    approval: &::toolset::Approval,
                ) -> ::std::result::Result<::toolset::Approved<Self>, ::toolset::ApprovalError> {
                    ::toolset::approve::<Self>(proposal, approval)
                }

                /// A per-request policy starting at `autonomy`.
                pub fn policy(autonomy: ::toolset::Autonomy) -> ::toolset::Policy<Self> {
                    ::toolset::Policy::new(autonomy)
                }
            }
        };
    }
}
