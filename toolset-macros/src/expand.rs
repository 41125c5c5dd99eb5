//! The code `#[tool]` writes: the handler fn as the user wrote it, the typed arguments
//! struct that shares its name, and the `Tool` / `ToolHandler` impls the set dispatches
//! through. Generated code uses absolute paths only.

use crate::ast::{self, Arg, CleanItem, Handler, Kind, Param, Tool};
use crate::attr::ToolAttr;
use crate::errors::Errors;
use crate::fallback;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Entry point of `#[tool]`.
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let item: syn::Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            errors.push(error);
            let compile_errors = errors.to_compile_errors();
            return quote!(#compile_errors #item);
        }
    };
    let (clean, tool) = ast::analyze(attr, item, &mut errors);
    match tool {
        Some(tool) if errors.is_empty() => expand(&clean, &tool),
        _ => fallback::emit(&clean, &errors),
    }
}

fn expand(clean: &CleanItem, tool: &Tool) -> TokenStream {
    match &tool.kind {
        Kind::Handler(handler) => expand_handler(clean, tool, handler),
        Kind::ProposeOnly => expand_propose_only(clean, tool),
    }
}

fn expand_handler(clean: &CleanItem, tool: &Tool, handler: &Handler) -> TokenStream {
    let ident = &tool.ident;
    let vis = &tool.vis;
    let whole_args = handler.whole_args();

    // The arguments struct shares the fn's name: fns live in the value namespace and
    // braced structs only in the type namespace, so `toolset![set_due_date]` can name the
    // tool by the one identifier the user wrote.
    let args_struct = match whole_args {
        Some(_) => quote! {
            #[doc = concat!("The tool [`", stringify!(#ident), "`](fn@", stringify!(#ident), "), which takes its arguments as one object.")]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #ident {}
        },
        None => {
            let fields = handler
                .args
                .iter()
                .map(|Arg { ident, ty, attrs }| quote!(#(#attrs)* pub #ident: #ty,));
            quote! {
                #[doc = concat!("The arguments of the tool [`", stringify!(#ident), "`](fn@", stringify!(#ident), "), as the model passes them.")]
                #[allow(non_camel_case_types, missing_docs)]
                #[derive(::toolset::__private::serde::Deserialize, ::toolset::__private::schemars::JsonSchema)]
                #[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
                #[schemars(crate = "::toolset::__private::schemars")]
                #vis struct #ident {
                    #(#fields)*
                }
            }
        }
    };
    let args_type = match whole_args {
        Some(ty) => quote!(#ty),
        None => quote!(Self),
    };
    let output = &handler.output;
    let output_span = output.span();
    let argument_checks = whole_args.map(|ty| {
        quote_spanned! {ty.span()=>
            const _: () = ::toolset::__private::assert_argument::<#ty>();
        }
    });
    let tool_impl = tool_impl(
        tool,
        &args_type,
        quote_spanned!(output_span=> ::toolset::__private::output_schema_of::<#output>),
    );

    let uses_context = handler
        .params
        .iter()
        .any(|param| matches!(param, Param::Context));
    let ctx = if uses_context {
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
    let into_output = quote_spanned! {output_span=>
        <#output as ::toolset::IntoToolOutput>::into_tool_output(output)
    };
    let (impl_head, state_type, state_param, take_state) = match &handler.state {
        Some(state) => {
            let ty = &state.ty;
            let take = if state.mutable {
                quote! {
                    let ::std::option::Option::Some(state) = state.exclusive() else {
                        return ::std::result::Result::Err(::toolset::__private::exclusive_access_required(<Self as ::toolset::Tool>::NAME));
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
    let args_param = if handler
        .params
        .iter()
        .any(|p| matches!(p, Param::Arg(_) | Param::WholeArgs(_)))
    {
        format_ident!("args")
    } else {
        format_ident!("_args")
    };

    quote! {
        #clean

        #args_struct

        const _: () = {
            #argument_checks

            #tool_impl

            #[automatically_derived]
            #impl_head ::toolset::ToolHandler<#state_type> for #ident {
                fn call<'a>(
                    #state_param: ::toolset::Access<'a, #state_type>,
                    #ctx: &'a ::toolset::ToolContext,
                    #args_param: <Self as ::toolset::Tool>::Args,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
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

fn expand_propose_only(clean: &CleanItem, tool: &Tool) -> TokenStream {
    let ident = &tool.ident;
    let tool_impl = tool_impl(tool, &quote!(Self), quote!(|| ::std::option::Option::None));
    let check = quote_spanned! {ident.span()=>
        const _: () = ::toolset::__private::assert_argument::<#ident>();
    };
    quote! {
        #clean

        const _: () = {
            #check

            #tool_impl

            #[automatically_derived]
            impl<S> ::toolset::ToolHandler<S> for #ident {
                fn call<'a>(
                    _state: ::toolset::Access<'a, S>,
                    _ctx: &'a ::toolset::ToolContext,
                    _args: Self,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
                > + ::std::marker::Send + 'a
                where
                    S: 'a,
                {
                    // Unreachable through the gate: a propose-only call is never approved to run.
                    async move {
                        ::std::result::Result::Err(::toolset::__private::propose_only_has_no_handler(<Self as ::toolset::Tool>::NAME))
                    }
                }
            }
        };
    }
}

/// `impl Tool`: the metadata every tool has.
fn tool_impl(tool: &Tool, args_type: &TokenStream, output_schema: TokenStream) -> TokenStream {
    let ident = &tool.ident;
    let name = &tool.name;
    let description = &tool.description;
    let title = option(tool.title.as_ref().map(|title| quote!(#title)));
    let tier = tier_path(&tool.tier);
    let propose_only = matches!(tool.kind, Kind::ProposeOnly);
    let deferred = tool.deferred;
    let idempotent = tool.idempotent;
    let has_preview = tool.preview.is_some();
    let timeout_ms = option(tool.timeout_ms.map(|millis| quote!(#millis)));
    let preview = tool.preview.as_ref().map(|path| {
        quote_spanned! {path.span()=>
            fn preview(args: &<Self as ::toolset::Tool>::Args) -> ::std::option::Option<::std::string::String> {
                ::std::option::Option::Some(::std::convert::Into::into(#path(args)))
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl ::toolset::Tool for #ident {
            type Args = #args_type;
            const NAME: &'static str = #name;
            const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta {
                name: #name,
                title: #title,
                description: #description,
                tier: #tier,
                propose_only: #propose_only,
                deferred: #deferred,
                idempotent: #idempotent,
                has_preview: #has_preview,
                timeout_ms: #timeout_ms,
                input_schema: ::toolset::__private::input_schema_for::<<Self as ::toolset::Tool>::Args>,
                output_schema: #output_schema,
            };
            #preview
        }
    }
}

pub fn tier_path(tier: &str) -> TokenStream {
    let variant = format_ident!("{}", ast::camel_case(tier), span = Span::call_site());
    quote!(::toolset::Tier::#variant)
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    }
}
