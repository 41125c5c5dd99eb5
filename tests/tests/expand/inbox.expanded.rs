//! The four kinds of `#[tool]`: a handler writing state, a read-only handler taking the
//! call's context, a handler taking its arguments as one object, and a propose-only struct.
use toolset::{Json, ToolContext, ToolError, tool};
pub struct Inbox {
    pub items: Vec<String>,
}
/// Set the item's due date — only when the evidence states a real deadline.
pub async fn set_due_date(
    state: &mut Inbox,
    id: u32,
    due: Option<String>,
) -> Result<(), ToolError> {
    let item = state
        .items
        .get_mut(id as usize)
        .ok_or_else(|| ToolError::failed("no such item"))?;
    item.push_str(due.as_deref().unwrap_or("someday"));
    Ok(())
}
#[derive(serde::Deserialize)]
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[serde(
    bound(
        deserialize = "u32: ::toolset::__private::DeserializeArgument<'de>, String: ::toolset::__private::DeserializeArgument<'de>"
    )
)]
pub struct set_due_date {
    /// The item to change.
    pub id: u32,
    /// The deadline, as an ISO-8601 date.
    pub due: Option<String>,
}
const _: () = {
    #[automatically_derived]
    impl ::toolset::__private::schemars::JsonSchema for set_due_date {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("set_due_date")
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("macrotest000::set_due_date")
        }
        fn json_schema(
            generator: &mut ::toolset::__private::schemars::SchemaGenerator,
        ) -> ::toolset::__private::schemars::Schema {
            ::toolset::__private::arguments_schema(
                generator,
                &[
                    ::toolset::__private::Argument::required(
                            "id",
                            ::toolset::__private::argument_schema::<u32>,
                        )
                        .description("The item to change."),
                    ::toolset::__private::Argument::optional(
                            "due",
                            ::toolset::__private::optional_argument_schema::<String>,
                        )
                        .description("The deadline, as an ISO-8601 date."),
                ],
            )
        }
    }
    #[automatically_derived]
    impl ::toolset::set::Tool for set_due_date {
        type Args = Self;
        type Sent = (u32, (Option<String>, ()));
        const NAME: &'static str = "set_due_date";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "set_due_date",
                "Set the item's due date — only when the evidence states a real deadline.",
                ::toolset::Tier::Reversible,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .idempotent()
            .output_schema(
                <Result<
                    (),
                    ToolError,
                > as ::toolset::output::IntoToolOutput>::output_schema,
            );
    }
    #[automatically_derived]
    impl<
        Set: ::toolset::__private::SetState,
        const STATE_AT: usize,
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for set_due_date {
        const CHECK: () = {
            if STATE_AT == 1 {
                ::toolset::__private::state_sent::<Set>("`id: u32`", "id", false)
            }
            if STATE_AT == 2 {
                ::toolset::__private::state_sent::<
                    Set,
                >("`due: Option<String>`", "due", false)
            }
        };
    }
    #[automatically_derived]
    impl ::toolset::set::ToolHandler<Inbox> for set_due_date {
        fn call<'a>(
            state: ::toolset::set::Access<'a, Inbox>,
            _ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Inbox: 'a,
        {
            async move {
                let ::std::option::Option::Some(state) = state.exclusive() else {
                    return ::std::result::Result::Err(
                        ::toolset::__private::exclusive_access_required(
                            <Self as ::toolset::set::Tool>::NAME,
                        ),
                    );
                };
                let output: Result<(), ToolError> = set_due_date(
                        state,
                        args.id,
                        args.due,
                    )
                    .await;
                {
                    #[allow(unused_imports)]
                    use ::toolset::__private::{ConvertsOutput as _, KeepsSource as _};
                    #[allow(clippy::let_unit_value)]
                    let output = (&::toolset::__private::Returned::of(&output))
                        .conversion()
                        .pass(output);
                    ::toolset::output::IntoToolOutput::into_tool_output(output)
                }
            }
        }
    }
};
///Search the inbox by free text.
pub async fn search(
    state: &Inbox,
    ctx: &ToolContext,
    query: String,
) -> Json<Vec<String>> {
    ctx.report_progress(1.0, None, None);
    Json(state.items.iter().filter(|item| item.contains(&query)).cloned().collect())
}
#[derive(serde::Deserialize)]
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[serde(bound(deserialize = "String: ::toolset::__private::DeserializeArgument<'de>"))]
pub struct search {
    pub query: String,
}
const _: () = {
    #[automatically_derived]
    impl ::toolset::__private::schemars::JsonSchema for search {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("search")
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("macrotest000::search")
        }
        fn json_schema(
            generator: &mut ::toolset::__private::schemars::SchemaGenerator,
        ) -> ::toolset::__private::schemars::Schema {
            ::toolset::__private::arguments_schema(
                generator,
                &[
                    ::toolset::__private::Argument::required(
                        "query",
                        ::toolset::__private::argument_schema::<String>,
                    ),
                ],
            )
        }
    }
    #[automatically_derived]
    impl ::toolset::set::Tool for search {
        type Args = Self;
        type Sent = (String, ());
        const NAME: &'static str = "search";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "search",
                "Search the inbox by free text.",
                ::toolset::Tier::ReadOnly,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .reads_private()
            .reads_untrusted()
            .takes_context()
            .output_schema(
                <Json<Vec<String>> as ::toolset::output::IntoToolOutput>::output_schema,
            );
    }
    #[automatically_derived]
    impl<
        Set: ::toolset::__private::SetState,
        const STATE_AT: usize,
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for search {
        const CHECK: () = {
            if STATE_AT == 1 {
                ::toolset::__private::state_sent::<Set>("`query: String`", "query", true)
            }
        };
    }
    #[automatically_derived]
    impl ::toolset::set::ToolHandler<Inbox> for search {
        fn call<'a>(
            state: ::toolset::set::Access<'a, Inbox>,
            ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Inbox: 'a,
        {
            async move {
                let state = state.shared();
                let output: Json<Vec<String>> = search(state, ctx, args.query).await;
                {
                    #[allow(unused_imports)]
                    use ::toolset::__private::{ConvertsOutput as _, KeepsSource as _};
                    #[allow(clippy::let_unit_value)]
                    let output = (&::toolset::__private::Returned::of(&output))
                        .conversion()
                        .pass(output);
                    ::toolset::output::IntoToolOutput::into_tool_output(output)
                }
            }
        }
    }
};
/// The arguments of `create_item`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NewItem {
    /// The subject line.
    pub subject: String,
}
/// Create a new inbox item.
pub async fn create_item(state: &mut Inbox, new: NewItem) -> String {
    state.items.push(new.subject);
    ::alloc::__export::must_use({
        ::alloc::fmt::format(format_args!("created item {0}", state.items.len()))
    })
}
///The tool [`create_item`](fn@create_item), which takes its arguments as one object.
#[allow(non_camel_case_types, dead_code)]
pub struct create_item {}
const _: () = {
    #[automatically_derived]
    impl ::toolset::set::Tool for create_item {
        type Args = NewItem;
        type Sent = (NewItem, ());
        const NAME: &'static str = "create-item";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "create-item",
                "Create a new inbox item.",
                ::toolset::Tier::Reversible,
                ::toolset::__private::input_schema_of::<NewItem>,
            )
            .output_schema(<String as ::toolset::output::IntoToolOutput>::output_schema);
    }
    #[automatically_derived]
    impl<
        Set: ::toolset::__private::SetState,
        const STATE_AT: usize,
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for create_item {
        const CHECK: () = {
            if STATE_AT == 1 {
                ::toolset::__private::state_sent::<
                    Set,
                >("`#[args] new: NewItem`", "new", false)
            }
        };
    }
    #[automatically_derived]
    impl ::toolset::set::ToolHandler<Inbox> for create_item {
        fn call<'a>(
            state: ::toolset::set::Access<'a, Inbox>,
            _ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Inbox: 'a,
        {
            async move {
                let ::std::option::Option::Some(state) = state.exclusive() else {
                    return ::std::result::Result::Err(
                        ::toolset::__private::exclusive_access_required(
                            <Self as ::toolset::set::Tool>::NAME,
                        ),
                    );
                };
                let output: String = create_item(state, args).await;
                {
                    #[allow(unused_imports)]
                    use ::toolset::__private::{ConvertsOutput as _, KeepsSource as _};
                    #[allow(clippy::let_unit_value)]
                    let output = (&::toolset::__private::Returned::of(&output))
                        .conversion()
                        .pass(output);
                    ::toolset::output::IntoToolOutput::into_tool_output(output)
                }
            }
        }
    }
};
/// SEND the reply. You prepare it; the user sends it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
}
const _: () = {
    #[automatically_derived]
    impl ::toolset::set::Tool for SendReply {
        type Args = SendReply;
        type Sent = ();
        const NAME: &'static str = "send_reply";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "send_reply",
                "SEND the reply. You prepare it; the user sends it.",
                ::toolset::Tier::Irreversible,
                ::toolset::__private::input_schema_of::<SendReply>,
            )
            .propose_only()
            .sends_outside();
    }
    #[automatically_derived]
    impl<S> ::toolset::set::ToolHandler<S> for SendReply {}
    #[automatically_derived]
    impl<Set, const STATE_AT: usize> ::toolset::__private::StateNotSent<Set, STATE_AT>
    for SendReply {
        const CHECK: () = ();
    }
};
