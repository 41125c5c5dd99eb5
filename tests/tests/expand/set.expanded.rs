//! A minimal `toolset!`: one stateless tool in a set without `<State>`.
use toolset::{tool, toolset};
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
            ::std::borrow::Cow::Borrowed("macrotest001::now")
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
/// The clock's tools.
#[derive(Debug, Clone, Copy)]
pub struct Clock;
///A call to one of [`Clock`]'s tools, holding its typed arguments.
pub enum ClockCall {
    ///A call to `now`.
    Now(<now as ::toolset::set::Tool>::Args),
}
#[automatically_derived]
impl ::std::fmt::Debug for ClockCall {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match self {
            ClockCall::Now(_) => f.debug_tuple("Now").finish_non_exhaustive(),
        }
    }
}
///The name of one of [`Clock`]'s tools; a misspelled name does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClockName {
    ///The tool `now`.
    Now,
}
const _: () = {
    static SPECS: [::toolset::ToolSpec; 1usize] = [
        ::toolset::__private::spec_in::<Clock>(<now as ::toolset::set::Tool>::META),
    ];
    const NAMES: [&str; 1usize] = [<now as ::toolset::set::Tool>::NAME];
    static NAME_INDEX: ::toolset::__private::NameIndex<1, 2> = ::toolset::__private::NameIndex::new(
        &NAMES,
    );
    #[automatically_derived]
    impl ::toolset::set::ToolName for ClockName {
        const ALL: &'static [Self] = &[ClockName::Now];
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
    impl ::std::fmt::Display for ClockName {
        fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
            f.write_str(::toolset::set::ToolName::as_str(*self))
        }
    }
    #[automatically_derived]
    impl ::toolset::set::ToolSet for Clock {
        type State = ();
        type Call = ClockCall;
        type Name = ClockName;
        const NAME: &'static str = "Clock";
        fn specs() -> &'static [::toolset::ToolSpec] {
            &SPECS
        }
        fn render_cache() -> &'static ::toolset::__private::RenderCache {
            static RENDERED: ::toolset::__private::RenderCache = ::toolset::__private::RenderCache::new();
            &RENDERED
        }
        fn deserialize_call<'de, D: ::toolset::__private::serde::Deserializer<'de>>(
            name: ClockName,
            deserializer: D,
        ) -> ::std::result::Result<ClockCall, D::Error> {
            match name {
                ClockName::Now => {
                    <now as ::toolset::set::Tool>::deserialize_args(deserializer)
                        .map(ClockCall::Now)
                }
            }
        }
        fn name_of(call: &ClockCall) -> ClockName {
            match call {
                ClockCall::Now(_) => ClockName::Now,
            }
        }
        fn preview(call: &ClockCall) -> ::std::option::Option<::std::string::String> {
            match call {
                ClockCall::Now(args) => <now as ::toolset::set::Tool>::preview(args),
            }
        }
        fn escalation(call: &ClockCall) -> ::std::option::Option<::toolset::Escalation> {
            match call {
                ClockCall::Now(args) => <now as ::toolset::set::Tool>::escalate(args),
            }
        }
        fn dispatch<'a>(
            state: ::toolset::set::Access<'a, ()>,
            ctx: &'a ::toolset::ToolContext,
            call: ClockCall,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a {
            async move {
                match call {
                    ClockCall::Now(args) => {
                        <now as ::toolset::set::ToolHandler<()>>::call(state, ctx, args)
                            .await
                    }
                }
            }
        }
    }
};
