//! Differential test: for generated arguments, serde's verdict (the set's `parse`, which is
//! what the gate runs) agrees with the `jsonschema` crate's verdict on the rendered schemas.
//!
//! Values come from three sources: values built from each tool's schema (valid by
//! construction), those values mutated at a random spot (a key dropped or added, a value
//! replaced, wrapped or nulled), and random JSON whose keys and strings are drawn from the
//! corpus's own property names and enum values.
//!
//! Checked per tool:
//! - the consumer schema (MCP's `inputSchema`, the same as Anthropic's non-strict
//!   `input_schema` and OpenAI's non-strict `parameters`) accepts exactly what serde accepts. For a tool whose
//!   root union was flattened (`find`), the schema is a relaxation: serde ⇒ schema;
//! - the canonical schema and the consumer schema agree (both state every number type's
//!   range, see `toolset::schema::TypeRange`);
//! - where OpenAI strict mode is on, every value built from the strict schema parses, and
//!   whatever the strict schema accepts, serde accepts and the canonical schema accepts.
//!
//! Legitimate disagreements, excluded narrowly (each exclusion re-checks that it is the
//! whole story):
//! - **E1, integral floats.** JSON Schema counts `1.0` as an integer; serde_json does not
//!   read `1.0` into a `u32`. Excluded when writing the integral floats as integers makes
//!   serde and the schema agree and does not change the schema's verdict.
//! - (E2, missing integer bounds in the canonical schema, is gone: the canonical schema
//!   states the `u32` maximum itself, and `e2_the_canonical_schema_states_the_u32_maximum`
//!   pins it.)
//! - (E4, the last values of a 64-bit range, is gone: the schema states every integer
//!   type's range exactly since issue 26, so `u64::MAX` and `i64::MIN` agree too.)
//! - **E3, sequence form.** serde's derived `Deserialize` also reads a struct (and an
//!   internally tagged enum) from a JSON array of its fields in order; the schema says
//!   object. Excluded when serde accepts, the schema refuses, and the value holds an array
//!   at a spot where the schema admits only objects.
//! - **E5, a unit variant in map form.** serde_json reads an enum's unit variant `Low` from
//!   `{"low": null}` as well as from `"low"`; the schema says the string. Excluded when
//!   serde accepts, the schema refuses, and writing every one-key object holding `null` as
//!   its key makes the schema accept and serde still accept.

mod render_corpus;

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::strategy::Union;
use render_corpus::Corpus;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::LazyLock;
use toolset::consumer::{Format, tool_value};
use toolset::prelude::ToolSet;
use toolset::set::ToolName;
use toolset_tests::exclusions::integral_floats_as_integers;

type Name = <Corpus as ToolSet>::Name;

struct Case {
    name: Name,
    canonical: Value,
    consumer: Value,
    strict: Option<Value>,
    canonical_validator: Validator,
    consumer_validator: Validator,
    strict_validator: Option<Validator>,
    /// The canonical root is a union, flattened into a looser object for consumers.
    flattened: bool,
}

fn validator(schema: &Value) -> Validator {
    jsonschema::draft202012::new(schema).expect("the schema compiles")
}

static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    Name::ALL
        .iter()
        .map(|&name| {
            let spec = Corpus::spec_of(name);
            let canonical = spec.input_schema().clone();
            let consumer = tool_value(spec, Format::Mcp)["inputSchema"].clone();
            let responses = tool_value(spec, Format::OpenAiResponses);
            let strict = (responses["strict"] == true).then(|| responses["parameters"].clone());
            Case {
                name,
                canonical_validator: validator(&canonical),
                consumer_validator: validator(&consumer),
                strict_validator: strict.as_ref().map(validator),
                flattened: canonical.get("type").is_none(),
                canonical,
                consumer,
                strict,
            }
        })
        .collect()
});

/// Property names and string constants of every corpus schema: the words random JSON uses.
static VOCABULARY: LazyLock<Vec<String>> = LazyLock::new(|| {
    fn collect(value: &Value, words: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    words.extend(properties.keys().cloned());
                }
                for key in ["const", "enum"] {
                    match map.get(key) {
                        Some(Value::String(word)) => {
                            words.insert(word.clone());
                        }
                        Some(Value::Array(values)) => {
                            words.extend(values.iter().filter_map(Value::as_str).map(str::to_owned))
                        }
                        _ => {}
                    }
                }
                map.values().for_each(|value| collect(value, words));
            }
            Value::Array(items) => items.iter().for_each(|value| collect(value, words)),
            _ => {}
        }
    }
    let mut words = BTreeSet::new();
    for case in CASES.iter() {
        collect(&case.canonical, &mut words);
    }
    words.into_iter().collect()
});

fn parses(case: &Case, value: &Value) -> bool {
    <Corpus as ToolSet>::parse(case.name, &value.to_string()).is_ok()
}

// ----------------------------------------------------------------------------------------
// Generators
// ----------------------------------------------------------------------------------------

const INTERESTING_INTEGERS: &[i64] = &[
    0,
    1,
    -1,
    127,
    128,
    -128,
    -129,
    255,
    256,
    65535,
    65536,
    -32768,
    2147483647,
    2147483648,
    -2147483648,
    -2147483649,
    4294967295,
    4294967296,
    i64::MAX,
    i64::MIN,
];

fn word() -> BoxedStrategy<String> {
    prop_oneof![
        3 => prop::sample::select(VOCABULARY.clone()),
        1 => "[a-z_]{0,6}",
    ]
    .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop::sample::select(INTERESTING_INTEGERS).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
        prop::sample::select(&[0.0f64, 1.0, -3.0, 65535.0][..]).prop_map(|f| json!(f)),
        word().prop_map(Value::from),
    ]
    .boxed()
}

/// Random JSON, biased towards the corpus's words.
fn arbitrary_json() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(word(), inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
        .boxed()
}

fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference.strip_prefix('#').expect("a local reference");
    if pointer.is_empty() {
        root
    } else {
        root.pointer(pointer).expect("the reference resolves")
    }
}

fn types_of(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(ty)) => vec![ty.clone()],
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn integer(value: i128) -> Value {
    match i64::try_from(value) {
        Ok(value) => value.into(),
        Err(_) => u64::try_from(value).map(Value::from).unwrap_or(Value::Null),
    }
}

/// Values a schema accepts, built from the schema. `depth` bounds nesting: at 0, arrays are
/// empty, which ends recursion through `Vec<Node>`.
fn from_schema(schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let map = match schema {
        Value::Object(map) => map,
        _ => return arbitrary_json(),
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return from_schema(resolve(root, reference), root, depth);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return Union::new(
                branches
                    .iter()
                    .map(|branch| from_schema(branch, root, depth)),
            )
            .boxed();
        }
    }
    if let Some(value) = map.get("const") {
        return Just(value.clone()).boxed();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return prop::sample::select(values.clone()).boxed();
    }
    let mut types = types_of(map);
    if types.is_empty() {
        if !map.contains_key("properties") {
            return arbitrary_json();
        }
        types.push("object".into());
    }
    Union::new(types.iter().map(|ty| typed(map, ty, root, depth))).boxed()
}

fn typed(map: &Map<String, Value>, ty: &str, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let below = depth.saturating_sub(1);
    match ty {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" => {
            let bound = |key: &str| {
                map.get(key).and_then(|value| {
                    value
                        .as_i64()
                        .map(i128::from)
                        .or_else(|| value.as_u64().map(i128::from))
                })
            };
            let min = bound("minimum").unwrap_or(i64::MIN.into());
            let max = bound("maximum").unwrap_or(if min >= 0 {
                u64::MAX.into()
            } else {
                i64::MAX.into()
            });
            prop_oneof![
                1 => Just(integer(min)),
                1 => Just(integer(max)),
                4 => (min..=max).prop_map(integer),
                2 => (min..=min.saturating_add(100).min(max)).prop_map(integer),
            ]
            .boxed()
        }
        "number" => (-1.0e6f64..1.0e6).prop_map(|f| json!(f)).boxed(),
        "string" => prop_oneof![word(), "[a-zA-Z0-9 ]{0,8}".boxed()]
            .prop_map(Value::from)
            .boxed(),
        "array" => {
            if depth == 0 {
                return Just(json!([])).boxed();
            }
            let items = map
                .get("items")
                .map(|items| from_schema(items, root, below))
                .unwrap_or_else(arbitrary_json);
            prop::collection::vec(items, 0..3)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let fields: Vec<BoxedStrategy<(String, Option<Value>)>> = map
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(name, schema)| {
                    let name = name.clone();
                    let value = from_schema(schema, root, below);
                    if required.contains(&name.as_str()) {
                        value
                            .prop_map(move |value| (name.clone(), Some(value)))
                            .boxed()
                    } else {
                        prop::option::of(value)
                            .prop_map(move |value| (name.clone(), value))
                            .boxed()
                    }
                })
                .collect();
            let extra = match map.get("additionalProperties") {
                Some(values @ Value::Object(_)) if depth > 0 => {
                    prop::collection::btree_map(word(), from_schema(values, root, below), 0..3)
                        .boxed()
                }
                _ => Just(Default::default()).boxed(),
            };
            (fields, extra)
                .prop_map(|(fields, extra)| {
                    let mut object: Map<String, Value> = extra.into_iter().collect();
                    for (name, value) in fields {
                        match value {
                            Some(value) => {
                                object.insert(name, value);
                            }
                            None => {
                                object.remove(&name);
                            }
                        }
                    }
                    Value::Object(object)
                })
                .boxed()
        }
        _ => arbitrary_json(),
    }
}

fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// `value` changed at one spot.
fn mutate(
    mut value: Value,
    at: prop::sample::Index,
    kind: u8,
    replacement: Value,
    key: String,
) -> Value {
    let mut spots = Vec::new();
    pointers(&value, String::new(), &mut spots);
    let spot = at.get(&spots).clone();
    let Some(target) = value.pointer_mut(&spot) else {
        return value;
    };
    match kind % 6 {
        0 => *target = replacement,
        1 => match target {
            Value::Object(map) if !map.is_empty() => {
                let keys: Vec<String> = map.keys().cloned().collect();
                map.remove(at.get(&keys));
            }
            _ => *target = Value::Null,
        },
        2 => match target {
            Value::Object(map) => {
                map.insert(key, replacement);
            }
            _ => *target = replacement,
        },
        3 => *target = Value::Array(vec![target.take()]),
        4 => *target = Value::Null,
        _ => {
            *target = match target.take() {
                Value::Number(number) => match (number.as_i64(), number.as_u64()) {
                    (Some(n), _) => json!(n.checked_add(1).unwrap_or_else(|| n - 1)),
                    (None, Some(n)) => json!(n - 1),
                    _ => json!(number.as_f64().map(f64::trunc).unwrap_or(0.0)),
                },
                Value::String(_) => Value::from(key),
                Value::Bool(flag) => Value::from(!flag),
                other => other,
            }
        }
    }
    value
}

/// A tool of the corpus and an argument value for it.
fn case_and_value() -> impl Strategy<Value = (usize, Value)> {
    (0..CASES.len()).prop_flat_map(|index| {
        let case = &CASES[index];
        let valid = from_schema(&case.canonical, &case.canonical, 3);
        let mutated = (
            valid.clone(),
            any::<prop::sample::Index>(),
            any::<u8>(),
            arbitrary_json(),
            word(),
        )
            .prop_map(|(value, at, kind, replacement, key)| {
                mutate(value, at, kind, replacement, key)
            });
        let value = prop_oneof![
            2 => valid,
            4 => mutated,
            1 => arbitrary_json(),
        ];
        (Just(index), value)
    })
}

// ----------------------------------------------------------------------------------------
// Exclusions
// ----------------------------------------------------------------------------------------

/// E1: the disagreement is exactly the integral-float spelling.
fn explained_by_integral_floats(case: &Case, validator: &Validator, value: &Value) -> bool {
    let normalized = integral_floats_as_integers(value);
    normalized != *value
        && validator.is_valid(&normalized) == validator.is_valid(value)
        && parses(case, &normalized) == validator.is_valid(&normalized)
}

/// Whether `schema` (following `$ref`s and unions) admits only objects.
fn admits_only_objects(schema: &Value, root: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return admits_only_objects(resolve(root, reference), root);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return branches
                .iter()
                .all(|branch| admits_only_objects(branch, root));
        }
    }
    types_of(map) == ["object"]
}

/// E3: somewhere, `value` holds an array where the schema wants an object.
fn has_sequence_form(value: &Value, schema: &Value, root: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    if value.is_array() && admits_only_objects(schema, root) {
        return true;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return has_sequence_form(value, resolve(root, reference), root);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && branches
                .iter()
                .any(|branch| has_sequence_form(value, branch, root))
        {
            return true;
        }
    }
    match value {
        Value::Object(object) => {
            let properties = map.get("properties").and_then(Value::as_object);
            object.iter().any(|(key, child)| {
                let schema = properties
                    .and_then(|properties| properties.get(key))
                    .or_else(|| map.get("additionalProperties"));
                schema.is_some_and(|schema| has_sequence_form(child, schema, root))
            })
        }
        Value::Array(items) => map.get("items").is_some_and(|schema| {
            items
                .iter()
                .any(|item| has_sequence_form(item, schema, root))
        }),
        _ => false,
    }
}

/// `value` with every one-key object whose value is `null` written as its key: the map
/// form of a unit variant (`{"low": null}`) as the string the schema states (`"low"`).
fn unit_variant_maps_as_strings(value: &Value) -> Value {
    match value {
        Value::Object(object) if object.len() == 1 => {
            let (key, child) = object.iter().next().expect("one entry");
            if child.is_null() {
                Value::String(key.clone())
            } else {
                Value::Object(Map::from_iter([(
                    key.clone(),
                    unit_variant_maps_as_strings(child),
                )]))
            }
        }
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, child)| (key.clone(), unit_variant_maps_as_strings(child)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(unit_variant_maps_as_strings).collect())
        }
        _ => value.clone(),
    }
}

/// E5: the disagreement is only the map form of unit variants (see the module docs).
fn explained_by_unit_variant_maps(case: &Case, validator: &Validator, value: &Value) -> bool {
    let rewritten = unit_variant_maps_as_strings(value);
    rewritten != *value && validator.is_valid(&rewritten) && parses(case, &rewritten)
}

fn check_consumer(case: &Case, value: &Value) -> Result<(), TestCaseError> {
    let serde = parses(case, value);
    let schema = case.consumer_validator.is_valid(value);
    if serde == schema {
        return Ok(());
    }
    // A flattened root union is a relaxation: it may accept what serde refuses.
    if case.flattened && schema && !serde {
        return Ok(());
    }
    if schema && !serde && explained_by_integral_floats(case, &case.consumer_validator, value) {
        return Ok(());
    }
    if serde && !schema && has_sequence_form(value, &case.consumer, &case.consumer) {
        return Ok(());
    }
    if serde && !schema && explained_by_unit_variant_maps(case, &case.consumer_validator, value) {
        return Ok(());
    }
    Err(TestCaseError::fail(format!(
        "{}: serde says {serde}, the consumer schema says {schema} for {value}",
        case.name.as_str()
    )))
}

fn check_canonical(case: &Case, value: &Value) -> Result<(), TestCaseError> {
    let canonical = case.canonical_validator.is_valid(value);
    let consumer = case.consumer_validator.is_valid(value);
    if canonical == consumer || case.flattened {
        return Ok(());
    }
    Err(TestCaseError::fail(format!(
        "{}: canonical says {canonical}, consumer says {consumer} for {value}",
        case.name.as_str()
    )))
}

fn check_strict(case: &Case, value: &Value) -> Result<(), TestCaseError> {
    let Some(strict) = &case.strict_validator else {
        return Ok(());
    };
    if !strict.is_valid(value) {
        return Ok(());
    }
    prop_assert!(
        case.canonical_validator.is_valid(value),
        "{}: the strict schema accepts {value}, the canonical one does not",
        case.name.as_str()
    );
    if !parses(case, value) {
        prop_assert!(
            explained_by_integral_floats(case, strict, value),
            "{}: the strict schema accepts {value}, serde does not",
            case.name.as_str()
        );
    }
    Ok(())
}

// ----------------------------------------------------------------------------------------
// The properties
// ----------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// serde and the schemas agree on built, mutated and random arguments.
    #[test]
    fn serde_and_the_schemas_agree((index, value) in case_and_value()) {
        let case = &CASES[index];
        check_consumer(case, &value)?;
        check_canonical(case, &value)?;
        check_strict(case, &value)?;
    }

    /// Every argument value the strict schema allows (what the model is forced to send)
    /// parses.
    #[test]
    fn whatever_strict_mode_lets_the_model_send_parses(
        (index, value) in (0..CASES.len())
            .prop_filter("strict tools only", |index| CASES[*index].strict.is_some())
            .prop_flat_map(|index| {
                let strict = CASES[index].strict.clone().unwrap_or_default();
                (Just(index), from_schema(&strict, &strict, 3))
            })
    ) {
        let case = &CASES[index];
        let strict = case.strict_validator.as_ref().map(|v| v.is_valid(&value));
        prop_assert_eq!(strict, Some(true), "{}: built from the strict schema: {}", case.name.as_str(), &value);
        prop_assert!(parses(case, &value), "{}: {} does not parse", case.name.as_str(), value);
    }
}

// ----------------------------------------------------------------------------------------
// The exclusions, pinned: each is real, and each is what the docs above say.
// ----------------------------------------------------------------------------------------

fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|case| case.name.as_str() == name)
        .expect("a corpus tool")
}

#[test]
fn e1_an_integral_float_is_an_integer_to_the_schema_only() {
    let lookup = case("lookup");
    let value = json!({"query": "x", "limit": 1.0});
    assert!(lookup.consumer_validator.is_valid(&value));
    assert!(!parses(lookup, &value));
    assert!(parses(lookup, &json!({"query": "x", "limit": 1})));
}

#[test]
fn e2_the_canonical_schema_states_the_u32_maximum() {
    let lookup = case("lookup");
    let value = json!({"query": "x", "limit": 4294967296u64});
    assert!(!lookup.canonical_validator.is_valid(&value));
    assert!(!lookup.consumer_validator.is_valid(&value));
    assert!(!parses(lookup, &value));
}

#[test]
fn e5_serde_reads_a_unit_variant_from_a_one_key_map() {
    let set_priority = case("set_priority");
    let map_form = json!({"id": 0, "priority": {"low": null}, "after": "low"});
    assert!(parses(set_priority, &map_form));
    assert!(!set_priority.consumer_validator.is_valid(&map_form));
    let string_form = json!({"id": 0, "priority": "low", "after": "low"});
    assert_eq!(unit_variant_maps_as_strings(&map_form), string_form);
    assert!(parses(set_priority, &string_form));
    assert!(set_priority.consumer_validator.is_valid(&string_form));
    assert!(explained_by_unit_variant_maps(
        set_priority,
        &set_priority.consumer_validator,
        &map_form
    ));
}

#[test]
fn e3_serde_reads_a_struct_from_an_array() {
    let lookup = case("lookup");
    let value = json!(["x", 5]);
    assert!(parses(lookup, &value));
    assert!(!lookup.consumer_validator.is_valid(&value));
    assert!(has_sequence_form(
        &value,
        &lookup.consumer,
        &lookup.consumer
    ));
}

#[test]
fn the_flattened_union_is_looser_than_serde() {
    let find = case("find");
    assert!(find.flattened);
    // The tag of one shape with the fields of the other: the flattened schema allows it,
    // serde does not.
    let value = json!({"by": "id", "text": "x"});
    assert!(find.consumer_validator.is_valid(&value));
    assert!(!parses(find, &value));
    let value = json!({"by": "id", "id": 3});
    assert!(find.consumer_validator.is_valid(&value) && parses(find, &value));
}
