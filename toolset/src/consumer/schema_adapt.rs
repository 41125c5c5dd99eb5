//! The schema adaptation steps the consumers share: rewriting a canonical schema toward
//! what a consumer accepts (integer bounds, an object root) and the helpers every
//! consumer's own schema rules use (`$ref` resolution, type lists, null admission).
//!
//! Every consumer starts from a spec's canonical input schema (JSON Schema 2020-12 from
//! schemars, see [`crate::schema`]) and rewrites it; nothing here generates a schema.
//! Rewrites that apply to a schema node regardless of where it sits go through schemars'
//! own [`Transform`]s ([`RecursiveTransform`] over a closure, or a stock transform);
//! rewrites that need the root (resolving `$ref`s) walk the JSON by hand.
//!
//! [`consumer_schema`] is the form the JSON consumers share: the canonical schema plus
//! - the numeric bounds serde enforces but schemars leaves out (`u32` has `minimum: 0` but
//!   no `maximum`; `u64`, `u128` and `f32` have none of their own), so a value the schema
//!   accepts is one serde accepts;
//! - only the `format`s of JSON Schema 2020-12's vocabulary: schemars' `uint32`, `int64`,
//!   `double`, … are not standard, a strict validator (Ajv) rejects them, and the bounds
//!   above already say what they said;
//! - an object root: every provider requires `type: "object"` at the root and rejects a
//!   root `oneOf`/`anyOf`/`allOf`, so a root union of objects (an internally tagged enum
//!   taken whole with `#[args]`) is flattened into one object whose properties are the union
//!   of the branches' and whose `required` is their intersection. That is looser than the
//!   Rust type; the gate's parse still enforces the exact shape, and the description lists
//!   the shapes so the model knows them.

use crate::integer_format::integer_range;
use crate::schema::{MCP_HEADER, type_range};
use schemars::Schema;
use schemars::transform::{RecursiveTransform, Transform};
use serde_json::{Map, Value};

/// Applies a schemars transform to a schema held as a JSON value.
pub(crate) fn apply<T: Transform>(schema: &mut Value, mut transform: T) {
    if let Ok(schema) = <&mut Schema>::try_from(schema) {
        transform.transform(schema);
    }
}

/// Applies `f` to every schema object in `schema`: the root, `$defs` and every subschema.
pub(crate) fn for_each_schema(schema: &mut Value, mut f: impl FnMut(&mut Map<String, Value>)) {
    apply(
        schema,
        RecursiveTransform(|schema: &mut Schema| {
            if let Some(map) = schema.as_object_mut() {
                f(map);
            }
        }),
    );
}

/// The schema `reference` points to: `#` (the root) or a JSON pointer into the root,
/// such as `#/$defs/Node`. Remote references are not resolved.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

/// A schema node [`strict_node`] let through: its map and its types.
pub(crate) type StrictNode<'a> = (&'a Map<String, Value>, Vec<&'a str>);

/// The checks every strict subset (OpenAI's, Anthropic's) makes of one schema node first:
/// an object, holding only `keywords`, `$defs` only at the root, a `$ref` a string with
/// no sibling keyword that `local` accepts and that resolves in `root`, and a well-formed
/// `type` naming JSON types. `Ok(None)` for a `$ref` (nothing more to check there), else
/// the node's map and its types, for the subset's own rules.
pub(crate) fn strict_node<'a>(
    node: &'a Value,
    root: &Value,
    path: &str,
    is_root: bool,
    keywords: &[&str],
    local: fn(&str) -> bool,
) -> Result<Option<StrictNode<'a>>, String> {
    let map = node
        .as_object()
        .ok_or_else(|| format!("{path}: a boolean schema"))?;
    for key in map.keys() {
        if !keywords.contains(&key.as_str()) {
            return Err(format!("{path}: unsupported keyword `{key}`"));
        }
    }
    if map.contains_key("$defs") && !is_root {
        return Err(format!("{path}: `$defs` below the root"));
    }
    if let Some(reference) = map.get("$ref") {
        let reference = reference
            .as_str()
            .ok_or_else(|| format!("{path}: `$ref` is not a string"))?;
        if map.len() > 1 {
            return Err(format!("{path}: `$ref` with sibling keywords"));
        }
        if !local(reference) || resolve(root, reference).is_none() {
            return Err(format!("{path}: `$ref` {reference} does not resolve"));
        }
        return Ok(None);
    }
    let types = types_of(map);
    match map.get("type") {
        None | Some(Value::String(_)) => {}
        Some(Value::Array(all)) if all.len() == types.len() && !types.is_empty() => {}
        Some(_) => return Err(format!("{path}: malformed `type`")),
    }
    for ty in &types {
        if !matches!(
            *ty,
            "string" | "number" | "integer" | "boolean" | "object" | "array" | "null"
        ) {
            return Err(format!("{path}: unknown type `{ty}`"));
        }
    }
    Ok(Some((map, types)))
}

/// The JSON types a schema node's `type` keyword allows; empty when it has none.
pub(crate) fn types_of(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `map`'s `type` is exactly `ty` or an array containing it.
pub(crate) fn has_type(map: &Map<String, Value>, ty: &str) -> bool {
    types_of(map).contains(&ty)
}

/// Whether `schema` accepts `null`, following `$ref`s into `root`. Conservative: `false`
/// when unsure (an unresolvable or too deeply nested reference).
pub(crate) fn admits_null(schema: &Value, root: &Value) -> bool {
    admits_null_at(schema, root, 0)
}

fn admits_null_at(schema: &Value, root: &Value, depth: usize) -> bool {
    const MAX_DEPTH: usize = 32;
    if depth > MAX_DEPTH {
        return false;
    }
    let map = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(map) => map,
        _ => return false,
    };
    // Every keyword present must accept null; check the ones that can refuse it.
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        match resolve(root, reference) {
            Some(target) if admits_null_at(target, root, depth + 1) => {}
            _ => return false,
        }
    }
    if map.contains_key("type") && !has_type(map, "null") {
        return false;
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if let Some(value) = map.get("const")
        && !value.is_null()
    {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let matching = branches
                .iter()
                .filter(|branch| admits_null_at(branch, root, depth + 1))
                .count();
            let ok = if key == "anyOf" {
                matching > 0
            } else {
                matching == 1
            };
            if !ok {
                return false;
            }
        }
    }
    if let Some(Value::Array(branches)) = map.get("allOf")
        && !branches
            .iter()
            .all(|branch| admits_null_at(branch, root, depth + 1))
    {
        return false;
    }
    if map.contains_key("not") || map.contains_key("if") {
        // Not worth modelling; be conservative.
        return false;
    }
    true
}

/// The path of the first object schema under `node` that admits arbitrary keys (a
/// `HashMap`, a `serde_json::Map`), which strict mode has no way to say.
pub(crate) fn first_open_object(node: &Value, path: &str) -> Option<String> {
    let map = node.as_object()?;
    let is_object = types_of(map).contains(&"object") || map.contains_key("properties");
    if is_object
        && (matches!(map.get("additionalProperties"), Some(extra) if extra != &Value::Bool(false))
            || map.contains_key("patternProperties")
            || map.contains_key("propertyNames"))
    {
        return Some(path.to_owned());
    }
    for (key, value) in map {
        let found = match (key.as_str(), value) {
            ("properties" | "$defs", Value::Object(children)) => {
                children.iter().find_map(|(name, child)| {
                    first_open_object(child, &format!("{path}/{key}/{name}"))
                })
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(children)) => {
                children.iter().enumerate().find_map(|(index, child)| {
                    first_open_object(child, &format!("{path}/{key}/{index}"))
                })
            }
            ("items", child) => first_open_object(child, &format!("{path}/items")),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Adds the `minimum`/`maximum` that a numeric `format` implies and schemars leaves out,
/// so that the schema refuses what serde refuses (`4294967296` for a `u32`) and says what
/// the format said without it: the bounds of [`type_range`], the one writer of a number
/// type's range (integer formats from the one table of them, [`integer_range`], with a
/// 128-bit end as the double just past it, never inside: see
/// [`TypeRange`](crate::schema::TypeRange)); `float` (an `f32`) is bounded by `±f32::MAX`.
///
/// Existing bounds are kept (they are never looser than the format's: schemars and users
/// only narrow them).
pub(crate) fn add_integer_bounds(schema: &mut Value) {
    for_each_schema(schema, |map| {
        let format = map.get("format").and_then(Value::as_str);
        let applies = match format {
            Some("float") => has_type(map, "number"),
            Some(format) => has_type(map, "integer") && integer_range(format).is_some(),
            None => false,
        };
        let Some(range) = format.filter(|_| applies).and_then(type_range) else {
            return;
        };
        if !map.contains_key("minimum") && !map.contains_key("exclusiveMinimum") {
            map.insert("minimum".into(), Value::Number(range.minimum));
        }
        if !map.contains_key("maximum") && !map.contains_key("exclusiveMaximum") {
            map.insert("maximum".into(), Value::Number(range.maximum));
        }
    });
}

/// The `format` values of JSON Schema 2020-12's format vocabulary (Validation, section
/// 7.3): the only ones a strict validator (Ajv in strict mode) knows without being told.
pub(crate) const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes every `format` outside [`STANDARD_FORMATS`]. schemars writes `uint32`, `int64`,
/// `double`, `float`, `uint`, … for Rust's numeric types; a strict validator rejects a
/// format it does not know, and what they say is already in `minimum`/`maximum` (see
/// [`add_integer_bounds`], which must run first). A non-numeric schema's own format (a
/// custom `#[schemars(extend("format" = ...))]`) is kept in its description instead.
pub(crate) fn keep_standard_formats(schema: &mut Value) {
    for_each_schema(schema, |map| {
        let Some(format) = map.get("format") else {
            return;
        };
        if format
            .as_str()
            .is_some_and(|format| STANDARD_FORMATS.contains(&format))
        {
            return;
        }
        let format = format.as_str().map(str::to_owned);
        map.shift_remove("format");
        let numeric = has_type(map, "integer") || has_type(map, "number");
        if let Some(format) = format.filter(|_| !numeric) {
            append_note(map, &format!("Format: {format}."));
        }
    });
}

/// Appends `note` to a schema node's description (or makes it the description).
pub(crate) fn append_note(map: &mut Map<String, Value>, note: &str) {
    let description = match map.get("description").and_then(Value::as_str) {
        Some(description) if !description.is_empty() => format!("{description} {note}"),
        _ => note.to_owned(),
    };
    map.insert("description".into(), description.into());
}

/// A `$ref` beside annotations only (`description`, `title`), in the form the strict subsets
/// (OpenAI's, Anthropic's), which let a `$ref` have no siblings, accept: the reference moves
/// into a one-branch `anyOf` beside them (`{"anyOf": [{"$ref": …}], "description": …}`),
/// so a documented parameter whose type is an enum or a struct keeps its description. A
/// node with other keywords beside its `$ref` is left as it is.
pub(crate) fn ref_beside_annotations(map: &mut Map<String, Value>) {
    if map.contains_key("$ref")
        && map.len() > 1
        && map
            .keys()
            .all(|key| matches!(key.as_str(), "$ref" | "description" | "title"))
        && let Some(reference) = map.shift_remove("$ref")
    {
        let mut branch = Map::new();
        branch.insert("$ref".into(), reference);
        map.insert("anyOf".into(), Value::Array(vec![branch.into()]));
    }
}

/// The schema the JSON Schema consumers share (Anthropic, MCP, OpenAI when not strict):
/// the canonical schema with numeric bounds, an object root, only standard formats, and
/// the root's keywords in one fixed order (see the module docs).
pub(crate) fn consumer_schema(canonical: &Value) -> Value {
    let mut schema = mcp_input_schema(canonical);
    drop_mcp_headers(&mut schema);
    schema
}

/// MCP's input schema: [`consumer_schema`] with its properties' `x-mcp-header`
/// annotations kept, which only MCP reads (its clients mirror those arguments into
/// `Mcp-Param-*` headers, and the HTTP server checks them).
pub(crate) fn mcp_input_schema(canonical: &Value) -> Value {
    let mut schema = bounded_with_headers(canonical);
    keep_standard_formats(&mut schema);
    order_root(&mut schema);
    schema
}

/// Removes every `x-mcp-header` annotation: an MCP transport's concern, which no other
/// consumer reads (and a strict one would refuse as an unknown keyword).
fn drop_mcp_headers(schema: &mut Value) {
    for_each_schema(schema, |map| {
        map.shift_remove(MCP_HEADER);
    });
}

/// The schema of a structured result (`Json<T>`) as a JSON Schema consumer reads it (MCP's
/// `outputSchema`, OpenAI Responses' `output_schema`): the canonical schema without
/// `$schema`, with numeric bounds, only standard formats, the root's keywords in order.
/// Its root is left as it is: whether a consumer takes a non-object root is its own rule.
pub(crate) fn result_schema(canonical: &Value) -> Value {
    let mut schema = canonical.clone();
    if let Value::Object(map) = &mut schema {
        map.shift_remove("$schema");
    }
    add_integer_bounds(&mut schema);
    keep_standard_formats(&mut schema);
    order_root(&mut schema);
    schema
}

/// The canonical schema with numeric bounds and an object root, its formats untouched:
/// where a consumer with a format list of its own (Gemini) starts.
pub(crate) fn bounded_schema(canonical: &Value) -> Value {
    let mut schema = bounded_with_headers(canonical);
    drop_mcp_headers(&mut schema);
    schema
}

/// The canonical schema with numeric bounds and an object root, its `x-mcp-header`
/// annotations still in: what MCP's input schema and [`bounded_schema`] start from.
fn bounded_with_headers(canonical: &Value) -> Value {
    let mut schema = canonical.clone();
    add_integer_bounds(&mut schema);
    object_root(&mut schema);
    schema
}

/// The order the root's keywords are written in, whatever order the canonical schema's
/// edits left them in; any other keyword follows, in its own order.
const ROOT_ORDER: [&str; 6] = [
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "$defs",
];

/// Writes the root's keywords in [`ROOT_ORDER`], so that the bytes read the same way for
/// every tool (`type` first, `$defs` last). Properties keep their declared order.
pub(crate) fn order_root(schema: &mut Value) {
    let Value::Object(root) = schema else {
        return;
    };
    let mut ordered = Map::new();
    for key in ROOT_ORDER {
        if let Some(value) = root.shift_remove(key) {
            ordered.insert(key.into(), value);
        }
    }
    ordered.append(root);
    // `$defs` stays last even after keywords outside the list.
    if let Some(defs) = ordered.shift_remove("$defs") {
        ordered.insert("$defs".into(), defs);
    }
    *root = ordered;
}

/// Makes the root an object schema: a root `$ref` is inlined, and a root union whose
/// branches are all objects is flattened into one object. A root that cannot be made an
/// object (a union with a non-object branch, a scalar) is left as it is.
pub(crate) fn object_root(schema: &mut Value) {
    // A root `$ref` (schemars does not emit one for the types it generates, but a custom
    // `JsonSchema` impl could): inline its target, keeping the root's other keywords.
    if let Some(reference) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .map(str::to_owned)
        && let Some(Value::Object(target)) = resolve(schema, &reference).cloned()
        && let Value::Object(root) = schema
    {
        root.shift_remove("$ref");
        for (key, value) in target {
            root.entry(key).or_insert(value);
        }
    }
    let root_snapshot = schema.clone();
    let Value::Object(root) = schema else {
        return;
    };
    if root.get("type").and_then(Value::as_str) == Some("object") {
        // OpenAI refuses an object root without `properties`; `{}` says the same thing.
        root.entry("properties")
            .or_insert_with(|| Map::new().into());
        return;
    }
    let union_key = match (root.contains_key("oneOf"), root.contains_key("anyOf")) {
        (true, false) => "oneOf",
        (false, true) => "anyOf",
        _ => return,
    };
    if root.contains_key("properties") || root.contains_key("allOf") || root.contains_key("type") {
        return;
    }
    let Some(Value::Array(branches)) = root.get(union_key) else {
        return;
    };
    let mut objects = Vec::with_capacity(branches.len());
    for branch in branches {
        let mut branch = branch.clone();
        if let Some(reference) = branch.get("$ref").and_then(Value::as_str)
            && let Some(Value::Object(target)) = resolve(&root_snapshot, reference).cloned()
            && let Value::Object(map) = &mut branch
        {
            map.shift_remove("$ref");
            for (key, value) in target {
                map.entry(key).or_insert(value);
            }
        }
        match branch {
            Value::Object(map)
                if map.get("type").and_then(Value::as_str) == Some("object")
                    && !map.contains_key("$ref")
                    && !map.contains_key("oneOf")
                    && !map.contains_key("anyOf")
                    && !map.contains_key("allOf") =>
            {
                objects.push(map)
            }
            _ => return,
        }
    }
    if objects.is_empty() {
        return;
    }
    let flat = flatten_objects(&objects);
    root.shift_remove(union_key);
    let shapes = describe_shapes(&objects);
    let description = match root.get("description").and_then(Value::as_str) {
        Some(existing) => format!("{existing}\n\n{shapes}"),
        None => shapes,
    };
    for (key, value) in flat {
        root.insert(key, value);
    }
    root.insert("description".into(), description.into());
}

/// One object whose properties are the union of `objects`' and whose `required` is the
/// intersection of theirs.
fn flatten_objects(objects: &[Map<String, Value>]) -> Map<String, Value> {
    let mut variants: Vec<(String, Vec<Value>)> = Vec::new();
    for object in objects {
        for (name, schema) in object
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            match variants.iter_mut().find(|(known, _)| known == name) {
                Some((_, schemas)) => {
                    if !schemas.contains(schema) {
                        schemas.push(schema.clone());
                    }
                }
                None => variants.push((name.clone(), vec![schema.clone()])),
            }
        }
    }
    // A branch that does not declare a property but admits unknown ones accepts any value
    // for it, so the flattened object must too, or it would be stricter than the union.
    let is_open = |object: &Map<String, Value>| {
        object.get("additionalProperties") != Some(&Value::Bool(false))
    };
    let declares = |object: &Map<String, Value>, name: &str| {
        object
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| properties.contains_key(name))
    };
    let mut properties = Map::new();
    for (name, schemas) in variants {
        let unconstrained = objects
            .iter()
            .any(|object| is_open(object) && !declares(object, &name));
        let merged = merge_property(schemas);
        let property = if unconstrained {
            // Keep only the description: any value is accepted.
            let mut any = Map::new();
            if let Some(description) = merged.get("description") {
                any.insert("description".into(), description.clone());
            }
            Value::Object(any)
        } else {
            merged
        };
        properties.insert(name, property);
    }
    let required_of = |object: &Map<String, Value>| -> Vec<String> {
        object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let mut required = objects.first().map(required_of).unwrap_or_default();
    for object in objects.iter().skip(1) {
        let theirs = required_of(object);
        required.retain(|name| theirs.contains(name));
    }
    let closed = objects
        .iter()
        .all(|object| object.get("additionalProperties") == Some(&Value::Bool(false)));

    let mut flat = Map::new();
    flat.insert("type".into(), "object".into());
    flat.insert("properties".into(), properties.into());
    flat.insert(
        "required".into(),
        required.into_iter().map(Value::from).collect(),
    );
    if closed {
        flat.insert("additionalProperties".into(), false.into());
    }
    flat
}

/// The schema of a property several union branches declare: one of them when they agree,
/// a string `enum` when each is a string constant (a tag), an `anyOf` otherwise.
fn merge_property(mut schemas: Vec<Value>) -> Value {
    if schemas.len() == 1 {
        return schemas.remove(0);
    }
    let mut tags = Vec::new();
    for schema in &schemas {
        match string_constants(schema) {
            Some(values) => {
                for value in values {
                    if !tags.contains(&value) {
                        tags.push(value);
                    }
                }
            }
            None => {
                let mut merged = Map::new();
                merged.insert("anyOf".into(), Value::Array(schemas));
                return merged.into();
            }
        }
    }
    let mut merged = Map::new();
    merged.insert("type".into(), "string".into());
    merged.insert("enum".into(), Value::Array(tags));
    merged.into()
}

/// The strings a schema accepts when it is a string `const` or an `enum` of strings.
pub(crate) fn string_constants(schema: &Value) -> Option<Vec<Value>> {
    let map = schema.as_object()?;
    if map.contains_key("type") && types_of(map) != ["string"] {
        return None;
    }
    if let Some(value) = map.get("const") {
        return value.is_string().then(|| vec![value.clone()]);
    }
    let values = map.get("enum")?.as_array()?;
    values.iter().all(Value::is_string).then(|| values.clone())
}

/// "Pass the arguments in one of these shapes: …" for a flattened root union.
fn describe_shapes(objects: &[Map<String, Value>]) -> String {
    let mut text = String::from("Pass the arguments in one of these shapes:");
    for object in objects {
        let properties = object.get("properties").and_then(Value::as_object);
        let mut fields = Vec::new();
        for name in object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let constant = properties
                .and_then(|properties| properties.get(name))
                .and_then(string_constants)
                .filter(|values| values.len() == 1)
                .and_then(|mut values| values.pop());
            match constant {
                Some(value) => fields.push(format!("{name}: {value}")),
                None => fields.push(name.to_owned()),
            }
        }
        text.push_str("\n  - {");
        text.push_str(&fields.join(", "));
        text.push('}');
        if let Some(description) = object.get("description").and_then(Value::as_str) {
            text.push_str(": ");
            text.push_str(description);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_bounds_follow_the_format() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "uint32", "minimum": 0},
                "b": {"type": ["integer", "null"], "format": "int32"},
                "c": {"type": "integer", "format": "uint64", "minimum": 0},
                "d": {"type": "integer", "format": "int8", "minimum": -1, "maximum": 5},
            }
        });
        add_integer_bounds(&mut schema);
        assert_eq!(schema["properties"]["a"]["maximum"], json!(4294967295u32));
        assert_eq!(schema["properties"]["b"]["minimum"], json!(i32::MIN));
        assert_eq!(schema["properties"]["b"]["maximum"], json!(i32::MAX));
        assert_eq!(schema["properties"]["c"]["maximum"], json!(u64::MAX));
        assert_eq!(schema["properties"]["d"]["minimum"], json!(-1));
        assert_eq!(schema["properties"]["d"]["maximum"], json!(5));
    }

    #[test]
    fn wide_and_float_formats_get_bounds_and_lose_their_format() {
        let schema = json!({
            "type": "object",
            "properties": {
                "big": {"type": "integer", "format": "uint128", "minimum": 0},
                "signed": {"type": "integer", "format": "int128"},
                "ratio": {"type": "number", "format": "float"},
                "exact": {"type": "number", "format": "double"},
                "at": {"type": "string", "format": "date-time"},
                "phone": {"type": "string", "format": "phone", "description": "A number."},
            }
        });
        let schema = consumer_schema(&schema);
        let properties = &schema["properties"];
        assert_eq!(properties["big"]["maximum"], json!(u128::MAX as f64));
        assert_eq!(properties["signed"]["minimum"], json!(i128::MIN as f64));
        assert_eq!(properties["ratio"]["maximum"], json!(f64::from(f32::MAX)));
        assert_eq!(properties["ratio"]["minimum"], json!(-f64::from(f32::MAX)));
        assert!(properties["exact"].get("minimum").is_none());
        for name in ["big", "signed", "ratio", "exact", "phone"] {
            assert!(properties[name].get("format").is_none(), "{name}");
        }
        assert_eq!(properties["at"]["format"], "date-time");
        assert_eq!(
            properties["phone"]["description"],
            "A number. Format: phone."
        );
    }

    #[test]
    fn the_root_keywords_come_in_one_order_and_properties_in_declared_order() {
        let schema = json!({
            "$defs": {}, "required": ["b"], "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
            "type": "object", "additionalProperties": false,
        });
        let schema = consumer_schema(&schema);
        let keys: Vec<&String> = schema
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "type",
                "properties",
                "required",
                "additionalProperties",
                "$defs"
            ]
        );
        let names: Vec<&String> = schema["properties"]
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(names, ["b", "a"]);
    }

    #[test]
    fn null_admission_follows_refs_and_unions() {
        let root = json!({
            "$defs": {"N": {"type": ["string", "null"]}, "S": {"type": "string"}},
        });
        assert!(admits_null(&json!({"$ref": "#/$defs/N"}), &root));
        assert!(!admits_null(&json!({"$ref": "#/$defs/S"}), &root));
        assert!(admits_null(
            &json!({"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}),
            &root
        ));
        assert!(!admits_null(&json!({"type": "array"}), &root));
        assert!(admits_null(&json!({"description": "anything"}), &root));
        assert!(!admits_null(&json!({"$ref": "#/$defs/Missing"}), &root));
    }

    #[test]
    fn a_branch_admitting_unknown_keys_leaves_other_branches_keys_unconstrained() {
        let union = |closed: bool| {
            let extra = if closed { json!(false) } else { json!(true) };
            json!({"oneOf": [
                {"type": "object", "additionalProperties": extra,
                 "properties": {"id": {"type": "integer", "description": "The id."}}, "required": ["id"]},
                {"type": "object", "additionalProperties": extra,
                 "properties": {"text": {"type": "string"}}, "required": ["text"]},
            ]})
        };
        // Serde ignores `id` when it reads the `text` branch, so the flat object must too.
        let mut open = union(false);
        object_root(&mut open);
        assert_eq!(open["properties"]["id"], json!({"description": "The id."}));
        // With every branch closed, `id` only ever appears where it is an integer.
        let mut closed = union(true);
        object_root(&mut closed);
        assert_eq!(closed["properties"]["id"]["type"], "integer");
    }

    #[test]
    fn a_root_union_of_objects_is_flattened() {
        let mut schema = json!({
            "oneOf": [
                {"type": "object", "description": "By id.",
                 "properties": {"by": {"type": "string", "const": "id"}, "id": {"type": "integer"}},
                 "required": ["by", "id"]},
                {"type": "object",
                 "properties": {"by": {"type": "string", "const": "text"}, "text": {"type": "string"}},
                 "required": ["by", "text"]},
            ]
        });
        object_root(&mut schema);
        assert_eq!(schema["type"], "object");
        assert!(schema.get("oneOf").is_none());
        assert_eq!(
            schema["properties"]["by"],
            json!({"type": "string", "enum": ["id", "text"]})
        );
        assert_eq!(schema["required"], json!(["by"]));
        let description = schema["description"].as_str().unwrap_or_default();
        assert!(
            description.contains("{by: \"id\", id}: By id."),
            "{description}"
        );
    }

    #[test]
    fn a_root_union_with_a_scalar_branch_is_left_alone() {
        let original = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
        let mut schema = original.clone();
        object_root(&mut schema);
        assert_eq!(schema, original);
    }
}
