//! A minimal `toolset!`: one stateless tool in a set without `<State>`.
use toolset::{tool, toolset};
/// Tell the current time.
pub async fn now() -> &'static str {
    "2026-11-30T00:00:00Z"
}
///The arguments of the tool [`now`](fn@now), as the model passes them.
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[schemars(crate = "::toolset::__private::schemars")]
pub struct now {}
#[doc(hidden)]
#[allow(
    non_upper_case_globals,
    unused_attributes,
    unused_qualifications,
    clippy::absolute_paths,
)]
const _: () = {
    use ::toolset::__private::serde as _serde;
    #[automatically_derived]
    impl<'de> _serde::Deserialize<'de> for now {
        fn deserialize<__D>(
            __deserializer: __D,
        ) -> _serde::__private229::Result<Self, __D::Error>
        where
            __D: _serde::Deserializer<'de>,
        {
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            enum __Field {}
            #[doc(hidden)]
            struct __FieldVisitor;
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __FieldVisitor {
                type Value = __Field;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "field identifier",
                    )
                }
                fn visit_u64<__E>(
                    self,
                    __value: u64,
                ) -> _serde::__private229::Result<Self::Value, __E>
                where
                    __E: _serde::de::Error,
                {
                    match __value {
                        _ => {
                            _serde::__private229::Err(
                                _serde::de::Error::invalid_value(
                                    _serde::de::Unexpected::Unsigned(__value),
                                    &"field index 0 <= i < 0",
                                ),
                            )
                        }
                    }
                }
                fn visit_str<__E>(
                    self,
                    __value: &str,
                ) -> _serde::__private229::Result<Self::Value, __E>
                where
                    __E: _serde::de::Error,
                {
                    match __value {
                        _ => {
                            _serde::__private229::Err(
                                _serde::de::Error::unknown_field(__value, FIELDS),
                            )
                        }
                    }
                }
                fn visit_bytes<__E>(
                    self,
                    __value: &[u8],
                ) -> _serde::__private229::Result<Self::Value, __E>
                where
                    __E: _serde::de::Error,
                {
                    match __value {
                        _ => {
                            let __value = &_serde::__private229::from_utf8_lossy(
                                __value,
                            );
                            _serde::__private229::Err(
                                _serde::de::Error::unknown_field(__value, FIELDS),
                            )
                        }
                    }
                }
            }
            #[automatically_derived]
            impl<'de> _serde::Deserialize<'de> for __Field {
                #[inline]
                fn deserialize<__D>(
                    __deserializer: __D,
                ) -> _serde::__private229::Result<Self, __D::Error>
                where
                    __D: _serde::Deserializer<'de>,
                {
                    _serde::Deserializer::deserialize_identifier(
                        __deserializer,
                        __FieldVisitor,
                    )
                }
            }
            #[doc(hidden)]
            struct __Visitor<'de> {
                marker: _serde::__private229::PhantomData<now>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de> {
                type Value = now;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(__formatter, "struct now")
                }
                #[inline]
                fn visit_seq<__A>(
                    self,
                    _: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::SeqAccess<'de>,
                {
                    _serde::__private229::Ok(now {})
                }
                #[inline]
                fn visit_map<__A>(
                    self,
                    mut __map: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::MapAccess<'de>,
                {
                    _serde::__private229::Option::map(
                        _serde::de::MapAccess::next_key::<__Field>(&mut __map)?,
                        |__impossible| match __impossible {},
                    );
                    _serde::__private229::Ok(now {})
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &[];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "now",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<now>,
                    lifetime: _serde::__private229::PhantomData,
                },
            )
        }
    }
};
const _: () = {
    use ::toolset::__private::schemars as schemars;
    #[automatically_derived]
    #[allow(unused_braces, unused_qualifications)]
    impl schemars::JsonSchema for now {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("now")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest003::now")
        }
        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            {
                let mut schema = <::schemars::Schema as ::core::convert::TryFrom<
                    _,
                >>::try_from(
                        ::serde_json::Value::Object({
                            let mut object = ::serde_json::Map::new();
                            let _ = object
                                .insert(
                                    ("type").into(),
                                    ::serde_json::to_value(&"object").unwrap(),
                                );
                            let _ = object
                                .insert(
                                    ("additionalProperties").into(),
                                    ::serde_json::Value::Bool(false),
                                );
                            object
                        }),
                    )
                    .unwrap();
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "The arguments of the tool [`now`](fn@now), as the model passes them.",
                            )
                            .0;
                        TITLE
                    },
                );
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "description",
                    {
                        const DESCRIPTION: &str = schemars::_private::get_title_and_description(
                                "The arguments of the tool [`now`](fn@now), as the model passes them.",
                            )
                            .1;
                        DESCRIPTION
                    },
                );
                schema
            }
        }
        fn inline_schema() -> bool {
            false
        }
    }
};
const _: () = {
    #[automatically_derived]
    impl ::toolset::Tool for now {
        type Args = Self;
        const NAME: &'static str = "now";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "now",
                "Tell the current time.",
                ::toolset::Tier::ReadOnly,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .output_schema(<&'static str as ::toolset::IntoToolOutput>::output_schema);
    }
    #[automatically_derived]
    impl<S: ::std::marker::Send + ::std::marker::Sync> ::toolset::ToolHandler<S>
    for now {
        fn call<'a>(
            _state: ::toolset::Access<'a, S>,
            _ctx: &'a ::toolset::ToolContext,
            _args: <Self as ::toolset::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            S: 'a,
        {
            async move {
                let output: &'static str = now().await;
                <&'static str as ::toolset::IntoToolOutput>::into_tool_output(output)
            }
        }
    }
};
/// The clock's tools.
pub struct Clock;
#[automatically_derived]
impl ::core::fmt::Debug for Clock {
    #[inline]
    fn fmt(&self, f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
        ::core::fmt::Formatter::write_str(f, "Clock")
    }
}
#[automatically_derived]
#[doc(hidden)]
unsafe impl ::core::clone::TrivialClone for Clock {}
#[automatically_derived]
impl ::core::clone::Clone for Clock {
    #[inline]
    fn clone(&self) -> Clock {
        *self
    }
}
#[automatically_derived]
impl ::core::marker::Copy for Clock {}
///A call to one of [`Clock`]'s tools, holding its typed arguments.
pub enum ClockCall {
    ///A call to `now`.
    Now(<now as ::toolset::Tool>::Args),
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
pub enum ClockName {
    ///The tool `now`.
    Now,
}
#[automatically_derived]
impl ::core::fmt::Debug for ClockName {
    #[inline]
    fn fmt(&self, f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
        ::core::fmt::Formatter::write_str(f, "Now")
    }
}
#[automatically_derived]
#[doc(hidden)]
unsafe impl ::core::clone::TrivialClone for ClockName {}
#[automatically_derived]
impl ::core::clone::Clone for ClockName {
    #[inline]
    fn clone(&self) -> ClockName {
        *self
    }
}
#[automatically_derived]
impl ::core::marker::Copy for ClockName {}
#[automatically_derived]
impl ::core::marker::StructuralPartialEq for ClockName {}
#[automatically_derived]
impl ::core::cmp::PartialEq for ClockName {
    #[inline]
    fn eq(&self, other: &ClockName) -> bool {
        true
    }
}
#[automatically_derived]
impl ::core::cmp::Eq for ClockName {
    #[doc(hidden)]
    #[coverage(off)]
    fn assert_fields_are_eq(&self) {}
}
#[automatically_derived]
impl ::core::hash::Hash for ClockName {
    #[inline]
    fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {}
}
#[automatically_derived]
impl ::core::cmp::PartialOrd for ClockName {
    #[inline]
    fn partial_cmp(
        &self,
        other: &ClockName,
    ) -> ::core::option::Option<::core::cmp::Ordering> {
        ::core::option::Option::Some(::core::cmp::Ordering::Equal)
    }
}
#[automatically_derived]
impl ::core::cmp::Ord for ClockName {
    #[inline]
    fn cmp(&self, other: &ClockName) -> ::core::cmp::Ordering {
        ::core::cmp::Ordering::Equal
    }
}
const _: () = {
    static SPECS: [::toolset::ToolSpec; 1usize] = [
        ::toolset::ToolSpec::__new(<now as ::toolset::Tool>::META),
    ];
    const NAMES: [&str; 1usize] = [<now as ::toolset::Tool>::NAME];
    static NAME_INDEX: ::toolset::__private::NameIndex<1, 2> = ::toolset::__private::NameIndex::new(
        &NAMES,
    );
    #[automatically_derived]
    impl ::toolset::ToolName for ClockName {
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
            f.write_str(::toolset::ToolName::as_str(*self))
        }
    }
    #[automatically_derived]
    impl ::toolset::ToolSet for Clock {
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
        fn parse(
            name: ClockName,
            arguments: &str,
        ) -> ::std::result::Result<ClockCall, ::toolset::__private::serde_json::Error> {
            match name {
                ClockName::Now => {
                    ::toolset::__private::serde_json::from_str::<
                        <now as ::toolset::Tool>::Args,
                    >(arguments)
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
                ClockCall::Now(args) => <now as ::toolset::Tool>::preview(args),
            }
        }
        fn dispatch<'a>(
            state: ::toolset::Access<'a, ()>,
            ctx: &'a ::toolset::ToolContext,
            call: ClockCall,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a {
            async move {
                match call {
                    ClockCall::Now(args) => {
                        <now as ::toolset::ToolHandler<()>>::call(state, ctx, args).await
                    }
                }
            }
        }
    }
    #[allow(dead_code)]
    impl Clock {
        /// The specs of every tool in the set, in declared order.
        pub fn specs() -> &'static [::toolset::ToolSpec] {
            &SPECS
        }
        /// The spec of the tool the model calls `name`.
        pub fn spec(name: &str) -> ::std::option::Option<&'static ::toolset::ToolSpec> {
            <ClockName as ::toolset::ToolName>::from_name(name)
                .map(|name| &SPECS[name as usize])
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
            state: &mut (),
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
