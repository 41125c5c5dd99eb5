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
///The arguments of the tool [`set_due_date`](fn@set_due_date), as the model passes them.
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[serde(
    bound(
        deserialize = "u32: ::toolset::__private::DeserializeArgument<'de>, String: ::toolset::__private::DeserializeArgument<'de>"
    )
)]
#[schemars(crate = "::toolset::__private::schemars")]
pub struct set_due_date {
    /// The item to change.
    #[schemars(schema_with = "::toolset::__private::argument_schema::<u32>")]
    pub id: u32,
    /// The deadline, as an ISO-8601 date.
    #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
    #[schemars(schema_with = "::toolset::__private::optional_argument_schema::<String>")]
    pub due: Option<String>,
}
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
    impl<'de> _serde::Deserialize<'de> for set_due_date
    where
        u32: ::toolset::__private::DeserializeArgument<'de>,
        String: ::toolset::__private::DeserializeArgument<'de>,
    {
        fn deserialize<__D>(
            __deserializer: __D,
        ) -> _serde::__private229::Result<Self, __D::Error>
        where
            __D: _serde::Deserializer<'de>,
        {
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            enum __Field {
                __field0,
                __field1,
            }
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
                        0u64 => _serde::__private229::Ok(__Field::__field0),
                        1u64 => _serde::__private229::Ok(__Field::__field1),
                        _ => {
                            _serde::__private229::Err(
                                _serde::de::Error::invalid_value(
                                    _serde::de::Unexpected::Unsigned(__value),
                                    &"field index 0 <= i < 2",
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
                        "id" => _serde::__private229::Ok(__Field::__field0),
                        "due" => _serde::__private229::Ok(__Field::__field1),
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
                        b"id" => _serde::__private229::Ok(__Field::__field0),
                        b"due" => _serde::__private229::Ok(__Field::__field1),
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
            struct __Visitor<'de>
            where
                u32: ::toolset::__private::DeserializeArgument<'de>,
                String: ::toolset::__private::DeserializeArgument<'de>,
            {
                marker: _serde::__private229::PhantomData<set_due_date>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de>
            where
                u32: ::toolset::__private::DeserializeArgument<'de>,
                String: ::toolset::__private::DeserializeArgument<'de>,
            {
                type Value = set_due_date;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "struct set_due_date",
                    )
                }
                #[inline]
                fn visit_seq<__A>(
                    self,
                    mut __seq: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::SeqAccess<'de>,
                {
                    let __field0 = match _serde::de::SeqAccess::next_element::<
                        u32,
                    >(&mut __seq)? {
                        _serde::__private229::Some(__value) => __value,
                        _serde::__private229::None => {
                            return _serde::__private229::Err(
                                _serde::de::Error::invalid_length(
                                    0usize,
                                    &"struct set_due_date with 2 elements",
                                ),
                            );
                        }
                    };
                    let __field1 = match _serde::de::SeqAccess::next_element::<
                        Option<String>,
                    >(&mut __seq)? {
                        _serde::__private229::Some(__value) => __value,
                        _serde::__private229::None => {
                            _serde::__private229::Default::default()
                        }
                    };
                    _serde::__private229::Ok(set_due_date {
                        id: __field0,
                        due: __field1,
                    })
                }
                #[inline]
                fn visit_map<__A>(
                    self,
                    mut __map: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::MapAccess<'de>,
                {
                    let mut __field0: _serde::__private229::Option<u32> = _serde::__private229::None;
                    let mut __field1: _serde::__private229::Option<Option<String>> = _serde::__private229::None;
                    while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                        __Field,
                    >(&mut __map)? {
                        match __key {
                            __Field::__field0 => {
                                if _serde::__private229::Option::is_some(&__field0) {
                                    return _serde::__private229::Err(
                                        <__A::Error as _serde::de::Error>::duplicate_field("id"),
                                    );
                                }
                                __field0 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<u32>(&mut __map)?,
                                );
                            }
                            __Field::__field1 => {
                                if _serde::__private229::Option::is_some(&__field1) {
                                    return _serde::__private229::Err(
                                        <__A::Error as _serde::de::Error>::duplicate_field("due"),
                                    );
                                }
                                __field1 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<
                                        Option<String>,
                                    >(&mut __map)?,
                                );
                            }
                        }
                    }
                    let __field0 = match __field0 {
                        _serde::__private229::Some(__field0) => __field0,
                        _serde::__private229::None => {
                            _serde::__private229::de::missing_field("id")?
                        }
                    };
                    let __field1 = match __field1 {
                        _serde::__private229::Some(__field1) => __field1,
                        _serde::__private229::None => {
                            _serde::__private229::Default::default()
                        }
                    };
                    _serde::__private229::Ok(set_due_date {
                        id: __field0,
                        due: __field1,
                    })
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &["id", "due"];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "set_due_date",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<set_due_date>,
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
    impl schemars::JsonSchema for set_due_date {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("set_due_date")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed(
                "macrotest001::set_due_date",
            )
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
                {
                    struct _SchemarsSchemaWithFunction<T: ?::core::marker::Sized>(
                        ::core::marker::PhantomData<T>,
                    );
                    impl schemars::JsonSchema
                    for _SchemarsSchemaWithFunction<set_due_date> {
                        fn inline_schema() -> bool {
                            true
                        }
                        fn schema_name() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "argument_schema",
                            )
                        }
                        fn schema_id() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "_SchemarsSchemaWithFunction/macrotest001/:: toolset :: __private :: argument_schema :: < u32 >",
                            )
                        }
                        fn json_schema(
                            generator: &mut schemars::SchemaGenerator,
                        ) -> schemars::Schema {
                            ::toolset::__private::argument_schema::<u32>(generator)
                        }
                    }
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "id",
                        generator.contract().is_deserialize()
                            && <_SchemarsSchemaWithFunction<
                                set_due_date,
                            > as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            let mut schema = generator
                                .subschema_for::<
                                    _SchemarsSchemaWithFunction<set_due_date>,
                                >();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "The item to change.",
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
                                            "The item to change.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            schema
                        },
                    );
                }
                {
                    struct _SchemarsSchemaWithFunction<T: ?::core::marker::Sized>(
                        ::core::marker::PhantomData<T>,
                    );
                    impl schemars::JsonSchema
                    for _SchemarsSchemaWithFunction<set_due_date> {
                        fn inline_schema() -> bool {
                            true
                        }
                        fn schema_name() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "optional_argument_schema",
                            )
                        }
                        fn schema_id() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "_SchemarsSchemaWithFunction/macrotest001/:: toolset :: __private :: optional_argument_schema :: < String >",
                            )
                        }
                        fn json_schema(
                            generator: &mut schemars::SchemaGenerator,
                        ) -> schemars::Schema {
                            ::toolset::__private::optional_argument_schema::<
                                String,
                            >(generator)
                        }
                    }
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "due",
                        true,
                        {
                            let mut schema = generator
                                .subschema_for::<
                                    _SchemarsSchemaWithFunction<set_due_date>,
                                >();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "The deadline, as an ISO-8601 date.",
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
                                            "The deadline, as an ISO-8601 date.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            {
                                let default = <Option<String>>::default();
                                if ::std::option::Option::is_none(&default) {
                                    None
                                } else {
                                    Some(default)
                                }
                            }
                                .and_then(|d| {
                                    #[allow(unused_imports)]
                                    use ::schemars::_private::{
                                        MaybeSerializeWrapper, NoSerialize as _,
                                    };
                                    MaybeSerializeWrapper(d).maybe_to_value()
                                })
                                .map(|d| schema.insert("default".into(), d));
                            schema
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "The arguments of the tool [`set_due_date`](fn@set_due_date), as the model passes them.",
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
                                "The arguments of the tool [`set_due_date`](fn@set_due_date), as the model passes them.",
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
    impl ::toolset::Tool for set_due_date {
        type Args = Self;
        const NAME: &'static str = "set_due_date";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "set_due_date",
                "Set the item's due date — only when the evidence states a real deadline.",
                ::toolset::Tier::Reversible,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .idempotent()
            .output_schema(
                <Result<(), ToolError> as ::toolset::IntoToolOutput>::output_schema,
            );
    }
    #[automatically_derived]
    impl ::toolset::ToolHandler<Inbox> for set_due_date {
        fn call<'a>(
            state: ::toolset::Access<'a, Inbox>,
            _ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::Tool>::Args,
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
                            <Self as ::toolset::Tool>::NAME,
                        ),
                    );
                };
                let output: Result<(), ToolError> = set_due_date(
                        state,
                        args.id,
                        args.due,
                    )
                    .await;
                <Result<
                    (),
                    ToolError,
                > as ::toolset::IntoToolOutput>::into_tool_output(output)
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
///The arguments of the tool [`search`](fn@search), as the model passes them.
#[allow(non_camel_case_types, missing_docs)]
#[serde(crate = "::toolset::__private::serde", deny_unknown_fields)]
#[serde(bound(deserialize = "String: ::toolset::__private::DeserializeArgument<'de>"))]
#[schemars(crate = "::toolset::__private::schemars")]
pub struct search {
    #[schemars(schema_with = "::toolset::__private::argument_schema::<String>")]
    pub query: String,
}
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
    impl<'de> _serde::Deserialize<'de> for search
    where
        String: ::toolset::__private::DeserializeArgument<'de>,
    {
        fn deserialize<__D>(
            __deserializer: __D,
        ) -> _serde::__private229::Result<Self, __D::Error>
        where
            __D: _serde::Deserializer<'de>,
        {
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            enum __Field {
                __field0,
            }
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
                        0u64 => _serde::__private229::Ok(__Field::__field0),
                        _ => {
                            _serde::__private229::Err(
                                _serde::de::Error::invalid_value(
                                    _serde::de::Unexpected::Unsigned(__value),
                                    &"field index 0 <= i < 1",
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
                        "query" => _serde::__private229::Ok(__Field::__field0),
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
                        b"query" => _serde::__private229::Ok(__Field::__field0),
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
            struct __Visitor<'de>
            where
                String: ::toolset::__private::DeserializeArgument<'de>,
            {
                marker: _serde::__private229::PhantomData<search>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de>
            where
                String: ::toolset::__private::DeserializeArgument<'de>,
            {
                type Value = search;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "struct search",
                    )
                }
                #[inline]
                fn visit_seq<__A>(
                    self,
                    mut __seq: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::SeqAccess<'de>,
                {
                    let __field0 = match _serde::de::SeqAccess::next_element::<
                        String,
                    >(&mut __seq)? {
                        _serde::__private229::Some(__value) => __value,
                        _serde::__private229::None => {
                            return _serde::__private229::Err(
                                _serde::de::Error::invalid_length(
                                    0usize,
                                    &"struct search with 1 element",
                                ),
                            );
                        }
                    };
                    _serde::__private229::Ok(search { query: __field0 })
                }
                #[inline]
                fn visit_map<__A>(
                    self,
                    mut __map: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::MapAccess<'de>,
                {
                    let mut __field0: _serde::__private229::Option<String> = _serde::__private229::None;
                    while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                        __Field,
                    >(&mut __map)? {
                        match __key {
                            __Field::__field0 => {
                                if _serde::__private229::Option::is_some(&__field0) {
                                    return _serde::__private229::Err(
                                        <__A::Error as _serde::de::Error>::duplicate_field("query"),
                                    );
                                }
                                __field0 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<String>(&mut __map)?,
                                );
                            }
                        }
                    }
                    let __field0 = match __field0 {
                        _serde::__private229::Some(__field0) => __field0,
                        _serde::__private229::None => {
                            _serde::__private229::de::missing_field("query")?
                        }
                    };
                    _serde::__private229::Ok(search { query: __field0 })
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &["query"];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "search",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<search>,
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
    impl schemars::JsonSchema for search {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("search")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest001::search")
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
                {
                    struct _SchemarsSchemaWithFunction<T: ?::core::marker::Sized>(
                        ::core::marker::PhantomData<T>,
                    );
                    impl schemars::JsonSchema for _SchemarsSchemaWithFunction<search> {
                        fn inline_schema() -> bool {
                            true
                        }
                        fn schema_name() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "argument_schema",
                            )
                        }
                        fn schema_id() -> schemars::_private::alloc::borrow::Cow<
                            'static,
                            str,
                        > {
                            schemars::_private::alloc::borrow::Cow::Borrowed(
                                "_SchemarsSchemaWithFunction/macrotest001/:: toolset :: __private :: argument_schema :: < String >",
                            )
                        }
                        fn json_schema(
                            generator: &mut schemars::SchemaGenerator,
                        ) -> schemars::Schema {
                            ::toolset::__private::argument_schema::<String>(generator)
                        }
                    }
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "query",
                        generator.contract().is_deserialize()
                            && <_SchemarsSchemaWithFunction<
                                search,
                            > as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            generator
                                .subschema_for::<_SchemarsSchemaWithFunction<search>>()
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "The arguments of the tool [`search`](fn@search), as the model passes them.",
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
                                "The arguments of the tool [`search`](fn@search), as the model passes them.",
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
    impl ::toolset::Tool for search {
        type Args = Self;
        const NAME: &'static str = "search";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "search",
                "Search the inbox by free text.",
                ::toolset::Tier::ReadOnly,
                ::toolset::__private::input_schema_of::<Self>,
            )
            .takes_context()
            .output_schema(
                <Json<Vec<String>> as ::toolset::IntoToolOutput>::output_schema,
            );
    }
    #[automatically_derived]
    impl ::toolset::ToolHandler<Inbox> for search {
        fn call<'a>(
            state: ::toolset::Access<'a, Inbox>,
            ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::Tool>::Args,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<::toolset::ToolOutput, ::toolset::ToolError>,
        > + ::std::marker::Send + 'a
        where
            Inbox: 'a,
        {
            async move {
                let state = state.shared();
                let output: Json<Vec<String>> = search(state, ctx, args.query).await;
                <Json<
                    Vec<String>,
                > as ::toolset::IntoToolOutput>::into_tool_output(output)
            }
        }
    }
};
/// The arguments of `create_item`.
pub struct NewItem {
    /// The subject line.
    pub subject: String,
}
#[doc(hidden)]
#[allow(
    non_upper_case_globals,
    unused_attributes,
    unused_qualifications,
    clippy::absolute_paths,
)]
const _: () = {
    #[allow(unused_extern_crates, clippy::useless_attribute)]
    extern crate serde as _serde;
    #[automatically_derived]
    impl<'de> _serde::Deserialize<'de> for NewItem {
        fn deserialize<__D>(
            __deserializer: __D,
        ) -> _serde::__private229::Result<Self, __D::Error>
        where
            __D: _serde::Deserializer<'de>,
        {
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            enum __Field {
                __field0,
                __ignore,
            }
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
                        0u64 => _serde::__private229::Ok(__Field::__field0),
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
                        "subject" => _serde::__private229::Ok(__Field::__field0),
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
                        b"subject" => _serde::__private229::Ok(__Field::__field0),
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
                marker: _serde::__private229::PhantomData<NewItem>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de> {
                type Value = NewItem;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "struct NewItem",
                    )
                }
                #[inline]
                fn visit_seq<__A>(
                    self,
                    mut __seq: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::SeqAccess<'de>,
                {
                    let __field0 = match _serde::de::SeqAccess::next_element::<
                        String,
                    >(&mut __seq)? {
                        _serde::__private229::Some(__value) => __value,
                        _serde::__private229::None => {
                            return _serde::__private229::Err(
                                _serde::de::Error::invalid_length(
                                    0usize,
                                    &"struct NewItem with 1 element",
                                ),
                            );
                        }
                    };
                    _serde::__private229::Ok(NewItem { subject: __field0 })
                }
                #[inline]
                fn visit_map<__A>(
                    self,
                    mut __map: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::MapAccess<'de>,
                {
                    let mut __field0: _serde::__private229::Option<String> = _serde::__private229::None;
                    while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                        __Field,
                    >(&mut __map)? {
                        match __key {
                            __Field::__field0 => {
                                if _serde::__private229::Option::is_some(&__field0) {
                                    return _serde::__private229::Err(
                                        <__A::Error as _serde::de::Error>::duplicate_field(
                                            "subject",
                                        ),
                                    );
                                }
                                __field0 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<String>(&mut __map)?,
                                );
                            }
                            _ => {
                                let _ = _serde::de::MapAccess::next_value::<
                                    _serde::de::IgnoredAny,
                                >(&mut __map)?;
                            }
                        }
                    }
                    let __field0 = match __field0 {
                        _serde::__private229::Some(__field0) => __field0,
                        _serde::__private229::None => {
                            _serde::__private229::de::missing_field("subject")?
                        }
                    };
                    _serde::__private229::Ok(NewItem { subject: __field0 })
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &["subject"];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "NewItem",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<NewItem>,
                    lifetime: _serde::__private229::PhantomData,
                },
            )
        }
    }
};
const _: () = {
    #[automatically_derived]
    #[allow(unused_braces, unused_qualifications)]
    impl schemars::JsonSchema for NewItem {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("NewItem")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest001::NewItem")
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
                            object
                        }),
                    )
                    .unwrap();
                {
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "subject",
                        generator.contract().is_deserialize()
                            && <String as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            let mut schema = generator.subschema_for::<String>();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "The subject line.",
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
                                            "The subject line.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            schema
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "The arguments of `create_item`.",
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
                                "The arguments of `create_item`.",
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
    impl ::toolset::Tool for create_item {
        type Args = NewItem;
        const NAME: &'static str = "create-item";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "create-item",
                "Create a new inbox item.",
                ::toolset::Tier::Reversible,
                ::toolset::__private::input_schema_of::<NewItem>,
            )
            .output_schema(<String as ::toolset::IntoToolOutput>::output_schema);
    }
    #[automatically_derived]
    impl ::toolset::ToolHandler<Inbox> for create_item {
        fn call<'a>(
            state: ::toolset::Access<'a, Inbox>,
            _ctx: &'a ::toolset::ToolContext,
            args: <Self as ::toolset::Tool>::Args,
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
                            <Self as ::toolset::Tool>::NAME,
                        ),
                    );
                };
                let output: String = create_item(state, args).await;
                <String as ::toolset::IntoToolOutput>::into_tool_output(output)
            }
        }
    }
};
/// SEND the reply. You prepare it; the user sends it.
#[serde(deny_unknown_fields)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
}
#[doc(hidden)]
#[allow(
    non_upper_case_globals,
    unused_attributes,
    unused_qualifications,
    clippy::absolute_paths,
)]
const _: () = {
    #[allow(unused_extern_crates, clippy::useless_attribute)]
    extern crate serde as _serde;
    #[automatically_derived]
    impl<'de> _serde::Deserialize<'de> for SendReply {
        fn deserialize<__D>(
            __deserializer: __D,
        ) -> _serde::__private229::Result<Self, __D::Error>
        where
            __D: _serde::Deserializer<'de>,
        {
            #[allow(non_camel_case_types)]
            #[doc(hidden)]
            enum __Field {
                __field0,
            }
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
                        0u64 => _serde::__private229::Ok(__Field::__field0),
                        _ => {
                            _serde::__private229::Err(
                                _serde::de::Error::invalid_value(
                                    _serde::de::Unexpected::Unsigned(__value),
                                    &"field index 0 <= i < 1",
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
                        "to" => _serde::__private229::Ok(__Field::__field0),
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
                        b"to" => _serde::__private229::Ok(__Field::__field0),
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
                marker: _serde::__private229::PhantomData<SendReply>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de> {
                type Value = SendReply;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "struct SendReply",
                    )
                }
                #[inline]
                fn visit_seq<__A>(
                    self,
                    mut __seq: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::SeqAccess<'de>,
                {
                    let __field0 = match _serde::de::SeqAccess::next_element::<
                        String,
                    >(&mut __seq)? {
                        _serde::__private229::Some(__value) => __value,
                        _serde::__private229::None => {
                            return _serde::__private229::Err(
                                _serde::de::Error::invalid_length(
                                    0usize,
                                    &"struct SendReply with 1 element",
                                ),
                            );
                        }
                    };
                    _serde::__private229::Ok(SendReply { to: __field0 })
                }
                #[inline]
                fn visit_map<__A>(
                    self,
                    mut __map: __A,
                ) -> _serde::__private229::Result<Self::Value, __A::Error>
                where
                    __A: _serde::de::MapAccess<'de>,
                {
                    let mut __field0: _serde::__private229::Option<String> = _serde::__private229::None;
                    while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                        __Field,
                    >(&mut __map)? {
                        match __key {
                            __Field::__field0 => {
                                if _serde::__private229::Option::is_some(&__field0) {
                                    return _serde::__private229::Err(
                                        <__A::Error as _serde::de::Error>::duplicate_field("to"),
                                    );
                                }
                                __field0 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<String>(&mut __map)?,
                                );
                            }
                        }
                    }
                    let __field0 = match __field0 {
                        _serde::__private229::Some(__field0) => __field0,
                        _serde::__private229::None => {
                            _serde::__private229::de::missing_field("to")?
                        }
                    };
                    _serde::__private229::Ok(SendReply { to: __field0 })
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &["to"];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "SendReply",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<SendReply>,
                    lifetime: _serde::__private229::PhantomData,
                },
            )
        }
    }
};
const _: () = {
    #[automatically_derived]
    #[allow(unused_braces, unused_qualifications)]
    impl schemars::JsonSchema for SendReply {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("SendReply")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest001::SendReply")
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
                {
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "to",
                        generator.contract().is_deserialize()
                            && <String as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            let mut schema = generator.subschema_for::<String>();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "The recipient\'s address.",
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
                                            "The recipient\'s address.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            schema
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "SEND the reply. You prepare it; the user sends it.",
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
                                "SEND the reply. You prepare it; the user sends it.",
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
    impl ::toolset::Tool for SendReply {
        type Args = SendReply;
        const NAME: &'static str = "send_reply";
        const META: ::toolset::__private::ToolMeta = ::toolset::__private::ToolMeta::new(
                "send_reply",
                "SEND the reply. You prepare it; the user sends it.",
                ::toolset::Tier::Irreversible,
                ::toolset::__private::input_schema_of::<SendReply>,
            )
            .propose_only();
    }
    #[automatically_derived]
    impl<S> ::toolset::ToolHandler<S> for SendReply {
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
            async move {
                ::std::result::Result::Err(
                    ::toolset::__private::propose_only_has_no_handler(
                        <Self as ::toolset::Tool>::NAME,
                    ),
                )
            }
        }
    }
};
