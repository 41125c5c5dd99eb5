//! A `toolset!` whose tools take the set's per-run state: one borrowing it to read, one to
//! write, one taking none, so the expansion shows the state checks beside the dispatch.
use toolset::{ToolError, tool, toolset};
pub struct Notebook {
    pub notes: Vec<String>,
}
/// Count the notes.
pub async fn count(notebook: &Notebook) -> String {
    notebook.notes.len().to_string()
}
#[derive(serde::Deserialize)]
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
pub struct count {}
const _: () = {
    #[automatically_derived]
    impl ::toolset::__private::schemars::JsonSchema for count {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("count")
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("macrotest002::count")
        }
        fn json_schema(
            generator: &mut ::toolset::__private::schemars::SchemaGenerator,
        ) -> ::toolset::__private::schemars::Schema {
            ::toolset::__private::arguments_schema(generator, &[])
        }
    }
    #[automatically_derived]
    impl ::toolset::set::Tool for count {
        type Args = Self;
        type Sent = ();
        const NAME: &'static str = "count";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "count",
                "Count the notes.",
                ::toolset::Tier::ReadOnly,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .output_schema(<String as ::toolset::output::IntoToolOutput>::output_schema);
    }
    #[automatically_derived]
    impl<
        Set: ::toolset::__private::SetState,
        const STATE_AT: usize,
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for count {
        const CHECK: () = {};
    }
    #[automatically_derived]
    impl ::toolset::set::ToolHandler<Notebook> for count {
        fn call<'a>(
            state: ::toolset::set::Access<'a, Notebook>,
            _ctx: &'a ::toolset::ToolContext,
            _args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Notebook: 'a,
        {
            async move {
                let state = state.shared();
                let output: String = count(state).await;
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
/// Add a note.
pub async fn add_note(notebook: &mut Notebook, text: String) -> Result<(), ToolError> {
    notebook.notes.push(text);
    Ok(())
}
#[derive(serde::Deserialize)]
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[serde(bound(deserialize = "String: ::toolset::__private::DeserializeArgument<'de>"))]
pub struct add_note {
    pub text: String,
}
const _: () = {
    #[automatically_derived]
    impl ::toolset::__private::schemars::JsonSchema for add_note {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("add_note")
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("macrotest002::add_note")
        }
        fn json_schema(
            generator: &mut ::toolset::__private::schemars::SchemaGenerator,
        ) -> ::toolset::__private::schemars::Schema {
            ::toolset::__private::arguments_schema(
                generator,
                &[
                    ::toolset::__private::Argument::required(
                        "text",
                        ::toolset::__private::argument_schema::<String>,
                    ),
                ],
            )
        }
    }
    #[automatically_derived]
    impl ::toolset::set::Tool for add_note {
        type Args = Self;
        type Sent = (String, ());
        const NAME: &'static str = "add_note";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "add_note",
                "Add a note.",
                ::toolset::Tier::Reversible,
                ::toolset::__private::input_schema_of::<Self>,
            )
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
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for add_note {
        const CHECK: () = {
            if STATE_AT == 1 {
                ::toolset::__private::state_sent::<Set>("`text: String`", "text", false)
            }
        };
    }
    #[automatically_derived]
    impl ::toolset::set::ToolHandler<Notebook> for add_note {
        fn call<'a>(
            state: ::toolset::set::Access<'a, Notebook>,
            _ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Notebook: 'a,
        {
            async move {
                let ::std::option::Option::Some(state) = state.exclusive() else {
                    return ::std::result::Result::Err(
                        ::toolset::__private::exclusive_access_required(
                            <Self as ::toolset::set::Tool>::NAME,
                        ),
                    );
                };
                let output: Result<(), ToolError> = add_note(state, args.text).await;
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
/// Tell the current time.
pub async fn now() -> &'static str {
    "2026-11-30T00:00:00Z"
}
#[derive(serde::Deserialize)]
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
pub struct now {}
const _: () = {
    #[automatically_derived]
    impl ::toolset::__private::schemars::JsonSchema for now {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("now")
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed("macrotest002::now")
        }
        fn json_schema(
            generator: &mut ::toolset::__private::schemars::SchemaGenerator,
        ) -> ::toolset::__private::schemars::Schema {
            ::toolset::__private::arguments_schema(generator, &[])
        }
    }
    #[automatically_derived]
    impl ::toolset::set::Tool for now {
        type Args = Self;
        type Sent = ();
        const NAME: &'static str = "now";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "now",
                "Tell the current time.",
                ::toolset::Tier::ReadOnly,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .output_schema(
                <&'static str as ::toolset::output::IntoToolOutput>::output_schema,
            );
    }
    #[automatically_derived]
    impl<
        Set: ::toolset::__private::SetState,
        const STATE_AT: usize,
    > ::toolset::__private::StateNotSent<Set, STATE_AT> for now {
        const CHECK: () = {};
    }
    #[automatically_derived]
    impl<S: ::std::marker::Send + ::std::marker::Sync> ::toolset::set::ToolHandler<S>
    for now {
        fn call<'a>(
            _state: ::toolset::set::Access<'a, S>,
            _ctx: &'a ::toolset::ToolContext,
            _args: <Self as ::toolset::set::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            S: 'a,
        {
            async move {
                let output: &'static str = now().await;
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
/// The notebook's tools.
#[derive(Debug, Clone, Copy)]
pub struct NotebookTools;
///A call to one of [`NotebookTools`]'s tools, holding its typed arguments.
pub enum NotebookToolsCall {
    ///A call to `count`.
    Count(<count as ::toolset::set::Tool>::Args),
    ///A call to `add_note`.
    AddNote(<add_note as ::toolset::set::Tool>::Args),
    ///A call to `now`.
    Now(<now as ::toolset::set::Tool>::Args),
}
#[automatically_derived]
impl ::std::fmt::Debug for NotebookToolsCall {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match self {
            NotebookToolsCall::Count(_) => f.debug_tuple("Count").finish_non_exhaustive(),
            NotebookToolsCall::AddNote(_) => {
                f.debug_tuple("AddNote").finish_non_exhaustive()
            }
            NotebookToolsCall::Now(_) => f.debug_tuple("Now").finish_non_exhaustive(),
        }
    }
}
///The name of one of [`NotebookTools`]'s tools; a misspelled name does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NotebookToolsName {
    ///The tool `count`.
    Count,
    ///The tool `add_note`.
    AddNote,
    ///The tool `now`.
    Now,
}
const _: () = {
    static SPECS: [::toolset::ToolSpec; 3usize] = [
        ::toolset::__private::spec_in::<
            NotebookTools,
        >(<count as ::toolset::set::Tool>::META),
        ::toolset::__private::spec_in::<
            NotebookTools,
        >(<add_note as ::toolset::set::Tool>::META),
        ::toolset::__private::spec_in::<
            NotebookTools,
        >(<now as ::toolset::set::Tool>::META),
    ];
    const NAMES: [&str; 3usize] = [
        <count as ::toolset::set::Tool>::NAME,
        <add_note as ::toolset::set::Tool>::NAME,
        <now as ::toolset::set::Tool>::NAME,
    ];
    const ENTRIES: [&str; 3usize] = ["count", "add_note", "now"];
    const _: () = if let ::std::option::Option::Some(first) = ::toolset::__private::earlier_same_name(
        &NAMES,
        1usize,
    ) {
        {
            ::core::panicking::panic_display(
                &::toolset::__private::duplicate_name_message(
                        "NotebookTools",
                        &ENTRIES,
                        &NAMES,
                        first,
                        1usize,
                    )
                    .as_str(),
            );
        };
    };
    const _: () = if let ::std::option::Option::Some(first) = ::toolset::__private::earlier_same_name(
        &NAMES,
        2usize,
    ) {
        {
            ::core::panicking::panic_display(
                &::toolset::__private::duplicate_name_message(
                        "NotebookTools",
                        &ENTRIES,
                        &NAMES,
                        first,
                        2usize,
                    )
                    .as_str(),
            );
        };
    };
    static NAME_INDEX: ::toolset::__private::NameIndex<2, 8> = ::toolset::__private::NameIndex::new(
        &NAMES,
    );
    #[automatically_derived]
    impl ::toolset::set::ToolName for NotebookToolsName {
        const ALL: &'static [Self] = &[
            NotebookToolsName::Count,
            NotebookToolsName::AddNote,
            NotebookToolsName::Now,
        ];
        fn as_str(self) -> &'static str {
            NAMES[self as usize]
        }
        fn index(self) -> usize {
            self as usize
        }
        fn from_name(name: &str) -> ::std::option::Option<Self> {
            match NAME_INDEX.find(name, &NAMES) {
                ::std::option::Option::Some(index) => {
                    ::std::option::Option::Some(Self::ALL[index])
                }
                ::std::option::Option::None => ::std::option::Option::None,
            }
        }
    }
    #[automatically_derived]
    impl ::std::fmt::Display for NotebookToolsName {
        fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
            f.write_str(::toolset::set::ToolName::as_str(*self))
        }
    }
    #[automatically_derived]
    impl ::toolset::set::ToolSet for NotebookTools {
        type State = Notebook;
        type Call = NotebookToolsCall;
        type Name = NotebookToolsName;
        const NAME: &'static str = "NotebookTools";
        fn specs() -> &'static [::toolset::ToolSpec] {
            &SPECS
        }
        fn render_cache() -> &'static ::toolset::__private::RenderCache {
            static RENDERED: ::toolset::__private::RenderCache = ::toolset::__private::RenderCache::new();
            &RENDERED
        }
        fn deserialize_call<'de, D: ::toolset::__private::serde::Deserializer<'de>>(
            name: NotebookToolsName,
            deserializer: D,
        ) -> ::std::result::Result<NotebookToolsCall, D::Error> {
            match name {
                NotebookToolsName::Count => {
                    <count as ::toolset::set::Tool>::deserialize_args(deserializer)
                        .map(NotebookToolsCall::Count)
                }
                NotebookToolsName::AddNote => {
                    <add_note as ::toolset::set::Tool>::deserialize_args(deserializer)
                        .map(NotebookToolsCall::AddNote)
                }
                NotebookToolsName::Now => {
                    <now as ::toolset::set::Tool>::deserialize_args(deserializer)
                        .map(NotebookToolsCall::Now)
                }
            }
        }
        fn name_of(call: &NotebookToolsCall) -> NotebookToolsName {
            match call {
                NotebookToolsCall::Count(_) => NotebookToolsName::Count,
                NotebookToolsCall::AddNote(_) => NotebookToolsName::AddNote,
                NotebookToolsCall::Now(_) => NotebookToolsName::Now,
            }
        }
        fn preview(
            call: &NotebookToolsCall,
        ) -> ::std::option::Option<::std::string::String> {
            match call {
                NotebookToolsCall::Count(args) => {
                    <count as ::toolset::set::Tool>::preview(args)
                }
                NotebookToolsCall::AddNote(args) => {
                    <add_note as ::toolset::set::Tool>::preview(args)
                }
                NotebookToolsCall::Now(args) => {
                    <now as ::toolset::set::Tool>::preview(args)
                }
            }
        }
        fn escalation(
            call: &NotebookToolsCall,
        ) -> ::std::option::Option<::toolset::Escalation> {
            match call {
                NotebookToolsCall::Count(args) => {
                    <count as ::toolset::set::Tool>::escalate(args)
                }
                NotebookToolsCall::AddNote(args) => {
                    <add_note as ::toolset::set::Tool>::escalate(args)
                }
                NotebookToolsCall::Now(args) => {
                    <now as ::toolset::set::Tool>::escalate(args)
                }
            }
        }
        fn dispatch<'a>(
            state: ::toolset::set::Access<'a, Notebook>,
            ctx: &'a ::toolset::ToolContext,
            call: NotebookToolsCall,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a {
            async move {
                match call {
                    NotebookToolsCall::Count(args) => {
                        <count as ::toolset::set::ToolHandler<
                            Notebook,
                        >>::call(state, ctx, args)
                            .await
                    }
                    NotebookToolsCall::AddNote(args) => {
                        <add_note as ::toolset::set::ToolHandler<
                            Notebook,
                        >>::call(state, ctx, args)
                            .await
                    }
                    NotebookToolsCall::Now(args) => {
                        <now as ::toolset::set::ToolHandler<
                            Notebook,
                        >>::call(state, ctx, args)
                            .await
                    }
                }
            }
        }
    }
    const _: () = {
        #[allow(unused_imports)]
        use ::toolset::__private::SendsNoState as _;
        impl ::toolset::__private::HoldsState<NotebookTools> for Notebook {}
        impl ::toolset::__private::HoldsState<NotebookTools>
        for ::std::sync::Arc<Notebook> {}
        impl ::toolset::__private::HoldsState<NotebookTools>
        for ::std::rc::Rc<Notebook> {}
        impl ::toolset::__private::HoldsState<NotebookTools>
        for ::std::boxed::Box<Notebook> {}
        impl ::toolset::__private::HoldsState<NotebookTools>
        for ::std::sync::Mutex<Notebook> {}
        impl ::toolset::__private::HoldsState<NotebookTools>
        for ::std::sync::RwLock<Notebook> {}
        impl ::toolset::__private::SetState for NotebookTools {
            const WRITTEN: &'static str = "Notebook";
        }
        let () = <count as ::toolset::__private::StateNotSent<
            NotebookTools,
            {
                ::toolset::__private::StateProbe::<
                    <count as ::toolset::set::Tool>::Sent,
                    NotebookTools,
                    _,
                >::AT
            },
        >>::CHECK;
        let () = <add_note as ::toolset::__private::StateNotSent<
            NotebookTools,
            {
                ::toolset::__private::StateProbe::<
                    <add_note as ::toolset::set::Tool>::Sent,
                    NotebookTools,
                    _,
                >::AT
            },
        >>::CHECK;
        let () = <now as ::toolset::__private::StateNotSent<
            NotebookTools,
            {
                ::toolset::__private::StateProbe::<
                    <now as ::toolset::set::Tool>::Sent,
                    NotebookTools,
                    _,
                >::AT
            },
        >>::CHECK;
    };
};
