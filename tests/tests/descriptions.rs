//! No declared description vanishes from any format (issue 38, item 9): every tool
//! description, parameter doc, nested field doc, type doc and documented enum variant
//! reaches OpenAI Chat, OpenAI Responses, Anthropic (strict and not), Gemini, MCP and the
//! prompt format. Over generated runtime tools (`DynamicTool` with random schemas and
//! random descriptions, `$ref`s into `$defs` included) and a compiled set whose documented
//! parameters are enums and structs behind `$ref`.

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolset::consumer::Format;
use toolset::prelude::*;
use toolset::{Autonomy, DynamicTool, Tier, ToolContext, Toolbox, tool, toolset};

/// The state: none is needed.
pub struct Nothing;

/// How urgent a note is. Doc urgency-type.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// Doc urgency-low.
    Low,
    /// Doc urgency-high.
    High,
}

/// Where a note goes. Doc place-type.
#[derive(Deserialize, JsonSchema)]
pub struct Place {
    /// Doc place-folder.
    pub folder: String,
    /// Doc place-shelf.
    pub shelf: Option<Shelf>,
}

/// A shelf. Doc shelf-type.
#[derive(Deserialize, JsonSchema)]
pub struct Shelf {
    /// Doc shelf-row.
    pub row: u32,
}

/// A priority, as an internally tagged choice. Doc choice-type.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Choice {
    /// Doc choice-fixed.
    Fixed {
        /// Doc choice-fixed-level.
        level: u8,
    },
    /// Doc choice-auto.
    Auto,
}

/// File a note. Doc file-note-tool.
#[tool(tier = "reversible")]
pub async fn file_note(
    /// Doc param-urgency.
    urgency: Urgency,
    /// Doc param-place.
    place: Place,
    /// Doc param-maybe-urgency.
    maybe_urgency: Option<Urgency>,
    /// Doc param-places.
    places: Vec<Place>,
    /// Doc param-choice.
    choice: Choice,
) -> String {
    let _ = (urgency, place, maybe_urgency, places, choice);
    "filed".to_owned()
}

toolset! { pub Notes<Nothing> = [file_note]; }

/// Every rendering of `toolbox`'s list: each format, and where a format has strict tools,
/// with and without them.
fn renderings(toolbox: &Toolbox<Notes>) -> Vec<(String, String)> {
    let policy = Notes::policy(Autonomy::Reversible);
    let mut out = Vec::new();
    for format in Format::ALL {
        for strict in [true, false] {
            let list = toolbox
                .request(&policy)
                .expect("no unknown runtime name")
                .format(format)
                .strict(strict)
                .tool_list();
            out.push((format!("{format} strict={strict}"), list));
        }
    }
    out
}

/// The descriptions `rendered` lacks.
fn missing<'a>(rendered: &str, descriptions: &'a [String]) -> Vec<&'a str> {
    descriptions
        .iter()
        .map(String::as_str)
        .filter(|description| !rendered.contains(description))
        .collect()
}

fn assert_every_description_reaches_every_format(
    toolbox: &Toolbox<Notes>,
    descriptions: &[String],
) {
    let mut problems = Vec::new();
    for (rendering, text) in renderings(toolbox) {
        let lost = missing(&text, descriptions);
        if !lost.is_empty() {
            problems.push(format!("{rendering} lost {lost:?}:\n{text}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

const COMPILED: [&str; 16] = [
    "Doc file-note-tool",
    "Doc param-urgency",
    "Doc param-place",
    "Doc param-maybe-urgency",
    "Doc param-places",
    "Doc param-choice",
    "Doc urgency-type",
    "Doc urgency-low",
    "Doc urgency-high",
    "Doc place-type",
    "Doc place-folder",
    "Doc place-shelf",
    "Doc shelf-type",
    "Doc shelf-row",
    "Doc choice-fixed-level",
    "Doc choice-type",
];

#[test]
fn every_doc_of_a_compiled_tool_with_enums_and_structs_behind_refs_reaches_every_format() {
    let descriptions: Vec<String> = COMPILED.iter().map(|doc| (*doc).to_owned()).collect();
    assert_every_description_reaches_every_format(&Notes::toolbox(), &descriptions);
}

#[test]
fn anthropic_strict_keeps_the_doc_of_a_parameter_behind_a_ref() {
    let tool = toolset::consumer::anthropic::tool(&Notes::specs()[0]);
    assert_eq!(tool["strict"], true, "{tool:#}");
    let properties = &tool["input_schema"]["properties"];
    for (name, doc) in [
        ("urgency", "Doc param-urgency."),
        ("place", "Doc param-place."),
        ("choice", "Doc param-choice."),
    ] {
        assert_eq!(
            properties[name]["description"], doc,
            "{name}: {:#}",
            properties[name]
        );
    }
}

/// A generated declaration: a schema, and every description it declares.
#[derive(Debug, Clone)]
struct Declared {
    schema: Value,
    descriptions: Vec<String>,
}

/// A leaf schema of one of the common types.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "maxLength": 20, "pattern": "^[a-z]+$"})),
        Just(json!({"type": "integer", "minimum": 0, "maximum": 9})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"enum": ["red", "green"]})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
    ]
}

/// A schema built from leaves into arrays, objects and unions, with no descriptions yet.
fn shape() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|fields| {
                let properties: Map<String, Value> = fields
                    .into_iter()
                    .enumerate()
                    .map(|(index, field)| (format!("f{index}"), field))
                    .collect();
                let required: Vec<&String> = properties.keys().take(1).collect();
                json!({"type": "object", "properties": properties, "required": required,
                       "additionalProperties": false})
            }),
            prop::collection::vec(inner, 2..3).prop_map(|branches| json!({"anyOf": branches})),
        ]
    })
}

/// Gives every schema in `node` a description, numbered from `next`, by whether `pick`
/// says so, and records them.
fn describe(node: &mut Value, pick: &mut impl FnMut() -> bool, descriptions: &mut Vec<String>) {
    let Value::Object(map) = node else {
        return;
    };
    if pick() {
        let description = format!("Doc n{}x", descriptions.len());
        map.insert("description".into(), description.clone().into());
        descriptions.push(description);
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            for child in children.values_mut() {
                describe(child, pick, descriptions);
            }
        }
    }
    if let Some(items) = map.get_mut("items") {
        describe(items, pick, descriptions);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for branch in branches {
            describe(branch, pick, descriptions);
        }
    }
}

/// A runtime tool's arguments: up to five parameters, some behind a `$ref` into `$defs`,
/// with descriptions where `picks` says.
fn declared() -> impl Strategy<Value = Declared> {
    (
        prop::collection::vec((shape(), any::<bool>()), 1..6),
        prop::collection::vec(any::<bool>(), 64),
    )
        .prop_map(|(parameters, picks)| {
            let mut properties = Map::new();
            let mut defs = Map::new();
            for (index, (schema, behind_ref)) in parameters.into_iter().enumerate() {
                let name = format!("p{index}");
                if behind_ref {
                    let def = format!("D{index}");
                    defs.insert(def.clone(), schema);
                    properties.insert(name, json!({"$ref": format!("#/$defs/{def}")}));
                } else {
                    properties.insert(name, schema);
                }
            }
            let required: Vec<&String> = properties.keys().collect();
            let mut schema = json!({"type": "object", "properties": properties,
                                    "required": required, "additionalProperties": false});
            if !defs.is_empty() {
                schema["$defs"] = Value::Object(defs);
            }
            let mut picks = picks.into_iter().cycle();
            let mut descriptions = Vec::new();
            describe(
                &mut schema,
                &mut || picks.next().unwrap_or(true),
                &mut descriptions,
            );
            // The root's own description is the tool's; a root description is not listed.
            if let Some(map) = schema.as_object_mut()
                && let Some(Value::String(root)) = map.remove("description")
            {
                descriptions.retain(|description| *description != root);
            }
            Declared {
                schema,
                descriptions,
            }
        })
}

async fn echo(arguments: Value, _ctx: &ToolContext) -> String {
    arguments.to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_declared_description_of_a_runtime_tool_reaches_every_format(declared in declared()) {
        let toolbox = Notes::toolbox()
            .with(
                DynamicTool::new("generated", Tier::ReadOnly, "Doc tool-description.")
                    .input_schema(declared.schema.clone())
                    .handler(echo),
            )
            .map_err(|error| TestCaseError::fail(format!("{error}: {:#}", declared.schema)))?;
        let mut descriptions = declared.descriptions.clone();
        descriptions.push("Doc tool-description.".to_owned());
        descriptions.extend(COMPILED.iter().map(|doc| (*doc).to_owned()));
        let mut problems = Vec::new();
        for (rendering, text) in renderings(&toolbox) {
            let lost = missing(&text, &descriptions);
            if !lost.is_empty() {
                problems.push(format!("{rendering} lost {lost:?}"));
            }
        }
        prop_assert!(problems.is_empty(), "{}\n{:#}", problems.join("\n"), declared.schema);
    }
}
