//! Strict budgets: a request's list holds the provider's per-request limits on strict
//! tools (Anthropic: 20 strict tools, 24 optional parameters, 16 parameters with a union
//! type; OpenAI: 5000 properties, 1000 enum values, 120 000 characters), the tools past
//! them lose `strict` first fit in list order, and the request names each one with the
//! limit it would have exceeded. A tool outside strict mode's subset is never strict.
//!
//! The tools are runtime tools, so each test writes the exact schemas it needs; the
//! compiled set's one tool takes a map, which strict mode cannot express.

mod anthropic_strict_rules;

use anthropic_strict_rules::{
    MAX_OPTIONAL, MAX_STRICT_TOOLS, MAX_UNIONS, anthropic_strict_violations,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use toolset::consumer::{
    Format, StrictDowngrade, StrictLimit, anthropic, openai_chat, openai_responses,
};
use toolset::prelude::*;
use toolset::{
    Autonomy, DynamicTool, Policy, Tier, ToolCall, ToolContext, ToolOutput, Toolbox, tool, toolset,
};

/// Label an item.
#[tool(tier = "reversible")]
async fn label(labels: HashMap<String, String>) {
    let _ = labels;
}

toolset! { Labels = [label]; }

/// A runtime tool `name` taking `schema`.
fn runtime(name: &str, schema: Value) -> DynamicTool {
    DynamicTool::new(name, Tier::ReadOnly, "A test tool.")
        .input_schema(schema)
        .handler(|_args: Value, _ctx: &ToolContext| async { ToolOutput::text("ok") })
}

/// An object schema: `required` names required properties, `optional` optional ones,
/// each of `property`'s schema.
fn object(required: &[String], optional: &[String], property: &Value) -> Value {
    let properties: Map<String, Value> = required
        .iter()
        .chain(optional)
        .map(|name| (name.clone(), property.clone()))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn names(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|n| format!("{prefix}{n:02}")).collect()
}

fn toolbox(tools: Vec<DynamicTool>) -> Toolbox<Labels> {
    Labels::toolbox()
        .with_all(tools)
        .expect("the test tools register")
}

/// The rendered list of `toolbox` in `format`, and its downgrades.
fn render_list(toolbox: &Toolbox<Labels>, format: Format) -> (Vec<Value>, Vec<StrictDowngrade>) {
    let policy = Policy::<Labels>::new(Autonomy::ReadOnly);
    let request = toolbox
        .request(&policy)
        .expect("the policy names no runtime tool")
        .format(format);
    let list = serde_json::from_str(&request.tool_list()).expect("a JSON array");
    (list, request.strict_downgrades())
}

/// The names of the tools of an Anthropic list rendered with `strict: true`.
fn strict_names(list: &[Value]) -> Vec<&str> {
    list.iter()
        .filter(|tool| tool.get("strict") == Some(&json!(true)))
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

fn dropped(downgrades: &[StrictDowngrade]) -> Vec<(&str, StrictLimit)> {
    downgrades
        .iter()
        .map(|downgrade| (downgrade.tool.as_str(), downgrade.limit))
        .collect()
}

#[test]
fn twenty_five_strict_tools_keep_strict_on_the_first_twenty() {
    let schema = object(&["query".into()], &[], &json!({"type": "string"}));
    let tools = names("t", 25);
    let toolbox = toolbox(
        tools
            .iter()
            .map(|name| runtime(name, schema.clone()))
            .collect(),
    );
    let (list, downgrades) = render_list(&toolbox, Format::Anthropic);
    assert_eq!(list.len(), 26, "the label tool, then the runtime tools");
    assert!(list[0].get("strict").is_none(), "a map is never strict");
    let strict = strict_names(&list);
    assert_eq!(strict, tools[..20], "the first twenty in list order");
    assert_eq!(
        dropped(&downgrades),
        tools[20..]
            .iter()
            .map(|name| (name.as_str(), StrictLimit::Tools))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        (downgrades[0].used, downgrades[0].needs, downgrades[0].max),
        (20, 1, 20)
    );
    assert_eq!(
        downgrades[0].to_string(),
        "\"t20\" is listed without strict: Anthropic allows 20 strict tools per request, \
         and the tools listed before it have 20 (it needs 1)"
    );
    // A downgraded tool is the plain rendering: no `strict`, the schema MCP reads.
    let mcp: Vec<Value> =
        serde_json::from_str(&toolbox.tool_list(Format::Mcp)).expect("a JSON array");
    assert_eq!(list[21]["input_schema"], mcp[21]["inputSchema"]);
    assert_eq!(
        list[21].as_object().map(|tool| tool.len()),
        Some(3),
        "{}",
        list[21]
    );
}

#[test]
fn optional_parameters_are_spent_first_fit() {
    let string = json!({"type": "string"});
    // Five optional parameters each: four tools spend 20, a fifth and sixth would pass 24,
    // a seventh with four fits.
    let mut tools: Vec<DynamicTool> = names("five", 6)
        .iter()
        .map(|name| runtime(name, object(&[], &names("p", 5), &string)))
        .collect();
    tools.push(runtime("four", object(&[], &names("p", 4), &string)));
    let (list, downgrades) = render_list(&toolbox(tools), Format::Anthropic);
    assert_eq!(
        strict_names(&list),
        ["five00", "five01", "five02", "five03", "four"]
    );
    assert_eq!(
        dropped(&downgrades),
        [
            ("five04", StrictLimit::OptionalParameters),
            ("five05", StrictLimit::OptionalParameters)
        ]
    );
    assert_eq!((downgrades[0].used, downgrades[0].needs), (20, 5));
}

#[test]
fn union_parameters_are_spent_first_fit() {
    let nullable = json!({"type": ["string", "null"]});
    let tools = names("u", 5)
        .iter()
        .map(|name| runtime(name, object(&names("p", 4), &[], &nullable)))
        .collect();
    let (list, downgrades) = render_list(&toolbox(tools), Format::Anthropic);
    assert_eq!(strict_names(&list), ["u00", "u01", "u02", "u03"]);
    assert_eq!(
        dropped(&downgrades),
        [("u04", StrictLimit::UnionParameters)]
    );
}

#[test]
fn a_tool_over_a_budget_alone_is_never_strict() {
    let string = json!({"type": "string"});
    let toolbox = toolbox(vec![runtime("wide", object(&[], &names("p", 25), &string))]);
    let (list, downgrades) = render_list(&toolbox, Format::Anthropic);
    assert!(list[1].get("strict").is_none());
    assert!(
        downgrades.is_empty(),
        "not strict to begin with: not a downgrade"
    );
    let spec = toolbox.runtime_tool("wide").expect("registered");
    let why = anthropic::why_not_strict(spec.spec()).expect("over the budget alone");
    assert!(why.contains("optional parameters"), "{why}");
}

#[test]
fn openai_enum_values_are_spent_across_the_request() {
    let values: Vec<String> = (0..300).map(|n| format!("v{n}")).collect();
    let property = json!({"type": "string", "enum": values});
    let tools: Vec<DynamicTool> = names("e", 4)
        .iter()
        .map(|name| runtime(name, object(&["pick".into()], &[], &property)))
        .collect();
    let toolbox = toolbox(tools);
    for format in [Format::OpenAiChat, Format::OpenAiResponses] {
        let (list, downgrades) = render_list(&toolbox, format);
        let strict: Vec<bool> = list
            .iter()
            .map(|tool| {
                let function = tool.get("function").unwrap_or(tool);
                function["strict"] == true
            })
            .collect();
        assert_eq!(strict, [false, true, true, true, false], "{format}");
        assert_eq!(dropped(&downgrades), [("e03", StrictLimit::EnumValues)]);
        assert_eq!((downgrades[0].used, downgrades[0].needs), (900, 300));
    }
    // The fixed list reports the same, and its downgraded tool is the plain rendering.
    let policy = Policy::<Labels>::new(Autonomy::ReadOnly);
    let fixed = toolbox
        .request(&policy)
        .expect("no runtime names")
        .format(Format::OpenAiChat)
        .fixed_tools()
        .expect("OpenAI has a tool choice");
    assert_eq!(
        dropped(&fixed.strict_downgrades),
        [("e03", StrictLimit::EnumValues)]
    );
    let tools: Vec<Value> = serde_json::from_str(&fixed.tools).expect("a JSON array");
    assert_eq!(tools[4]["function"]["strict"], false);
    let spec = toolbox.runtime_tool("e03").expect("registered");
    assert_eq!(openai_chat::why_not_strict(spec.spec()), None);
    assert_eq!(
        tools[4]["function"]["parameters"],
        toolset::consumer::tool_value(spec.spec(), Format::Mcp)["inputSchema"]
    );
}

#[test]
fn a_local_search_loads_each_definition_as_the_list_has_it() {
    let values: Vec<String> = (0..300).map(|n| format!("v{n}")).collect();
    let property = json!({"type": "string", "enum": values});
    let tools = names("e", 4);
    let toolbox = toolbox(
        tools
            .iter()
            .map(|name| runtime(name, object(&["pick".into()], &[], &property)))
            .collect(),
    );
    let policy = tools
        .iter()
        .fold(Policy::<Labels>::new(Autonomy::ReadOnly), |policy, name| {
            policy.defer(name)
        });
    let request = toolbox
        .request(&policy)
        .expect("the policy names the toolbox's tools")
        .format(Format::OpenAiResponses);
    assert_eq!(
        dropped(&request.strict_downgrades()),
        [("e03", StrictLimit::EnumValues)]
    );
    let search = ToolCall::new("c1", "tool_search", r#"{"query":"test tool"}"#);
    let plan = request.gate([search]).expect("a search call");
    let report = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(Labels::apply(&mut (), &ToolContext::default(), plan));
    let answer = openai_responses::results(&report.results());
    let loaded = answer[0]["tools"]
        .as_array()
        .expect("the loaded definitions");
    assert_eq!(loaded.len(), 4, "{answer}");
    for tool in loaded {
        let strict = tool["name"] != "e03";
        assert_eq!(tool["strict"], strict, "{tool}");
    }
}

#[test]
fn appending_a_tool_never_changes_the_bytes_before_it() {
    let schema = object(&["q".into()], &[], &json!({"type": ["string", "null"]}));
    let tools = names("t", 18);
    let short = toolbox(
        tools[..17]
            .iter()
            .map(|name| runtime(name, schema.clone()))
            .collect(),
    );
    let long = toolbox(
        tools
            .iter()
            .map(|name| runtime(name, schema.clone()))
            .collect(),
    );
    let policy = Policy::<Labels>::new(Autonomy::ReadOnly);
    let render = |toolbox: &Toolbox<Labels>| {
        let request = toolbox.request(&policy).expect("no runtime names");
        request.format(Format::Anthropic).tool_list()
    };
    let (short, long) = (render(&short), render(&long));
    let prefix = short.strip_suffix(']').expect("a JSON array");
    assert!(long.starts_with(prefix), "the list only grows at its end");
}

#[test]
fn a_request_may_mark_no_tool_strict() {
    let schema = object(&["q".into()], &[], &json!({"type": "string"}));
    let toolbox = toolbox(
        names("t", 25)
            .iter()
            .map(|name| runtime(name, schema.clone()))
            .collect(),
    );
    let policy = Policy::<Labels>::new(Autonomy::ReadOnly);
    for format in [
        Format::Anthropic,
        Format::OpenAiChat,
        Format::OpenAiResponses,
    ] {
        let request = toolbox
            .request(&policy)
            .expect("no runtime names")
            .format(format)
            .strict(false);
        assert!(request.strict_downgrades().is_empty(), "{format}");
        let list = request.tool_list();
        assert!(!list.contains("\"strict\":true"), "{format}: {list}");
        let mcp: Vec<Value> =
            serde_json::from_str(&toolbox.tool_list(Format::Mcp)).expect("a JSON array");
        let rendered: Vec<Value> = serde_json::from_str(&list).expect("a JSON array");
        let schema = match format {
            Format::Anthropic => &rendered[1]["input_schema"],
            Format::OpenAiChat => &rendered[1]["function"]["parameters"],
            _ => &rendered[1]["parameters"],
        };
        assert_eq!(schema, &mcp[1]["inputSchema"], "{format}: the plain schema");
    }
}

/// One random property: its schema, whether it is required, and whether the schema is
/// outside strict mode's subset (a map).
fn property() -> impl Strategy<Value = (Value, bool)> {
    let schema = prop_oneof![
        4 => Just(json!({"type": "string"})),
        3 => Just(json!({"type": ["integer", "null"], "minimum": 0})),
        2 => Just(json!({"anyOf": [{"type": "string"}, {"type": "boolean"}]})),
        2 => (1usize..400).prop_map(|count| {
            let values: Vec<String> = (0..count).map(|n| format!("v{n}")).collect();
            json!({"type": "string", "enum": values})
        }),
        1 => Just(json!({"type": "object", "additionalProperties": {"type": "string"}})),
        1 => Just(json!({"type": "array", "items": {"type": "string"}, "minItems": 2})),
    ];
    (schema, any::<bool>())
}

fn schemas() -> impl Strategy<Value = Vec<Value>> {
    let tool = prop::collection::vec(property(), 0..9).prop_map(|properties| {
        let mut all = Map::new();
        let mut required = Vec::new();
        for (index, (schema, is_required)) in properties.into_iter().enumerate() {
            let name = format!("p{index}");
            if is_required {
                required.push(json!(name));
            }
            all.insert(name, schema);
        }
        json!({"type": "object", "properties": all, "required": required, "additionalProperties": false})
    });
    prop::collection::vec(tool, 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_rendered_list_exceeds_a_budget(schemas in schemas()) {
        let tools = schemas
            .iter()
            .enumerate()
            .map(|(index, schema)| runtime(&format!("t{index:02}"), schema.clone()))
            .collect();
        let toolbox = toolbox(tools);

        // Anthropic: every strict tool is within the subset, and together within budget.
        let (list, downgrades) = render_list(&toolbox, Format::Anthropic);
        let (mut strict, mut optional, mut unions) = (0, 0, 0);
        let mut kept = Vec::new();
        for tool in &list {
            let name = tool["name"].as_str().unwrap_or_default();
            let Some(spec) = toolbox.runtime_tool(name) else { continue };
            let eligible = anthropic::why_not_strict(spec.spec()).is_none();
            if tool.get("strict").is_some() {
                prop_assert_eq!(&tool["strict"], &json!(true));
                prop_assert!(eligible, "{} is strict but not eligible", name);
                let (violations, counts) = anthropic_strict_violations(&tool["input_schema"]);
                prop_assert!(violations.is_empty(), "{}: {:?}", name, violations);
                strict += 1;
                optional += counts.0;
                unions += counts.1;
                kept.push(name);
            } else if eligible {
                // Eligible and not strict: only a downgrade, and it says so.
                prop_assert!(downgrades.iter().any(|d| d.tool == name), "{} lost strict silently", name);
            }
        }
        prop_assert!(strict <= MAX_STRICT_TOOLS);
        prop_assert!(optional <= MAX_OPTIONAL, "{} optional", optional);
        prop_assert!(unions <= MAX_UNIONS, "{} unions", unions);
        for downgrade in &downgrades {
            prop_assert!(!kept.contains(&downgrade.tool.as_str()));
            prop_assert!(downgrade.used + downgrade.needs > downgrade.max);
        }

        // OpenAI: the strict tools' enum values together within 1000.
        let (list, downgrades) = render_list(&toolbox, Format::OpenAiResponses);
        let mut enum_values = 0;
        for tool in &list {
            if tool["strict"] == true {
                let name = tool["name"].as_str().unwrap_or_default();
                let Some(spec) = toolbox.runtime_tool(name) else { continue };
                prop_assert_eq!(openai_chat::why_not_strict(spec.spec()), None);
                enum_values += count_enum_values(&tool["parameters"]);
            }
        }
        prop_assert!(enum_values <= 1000, "{} enum values", enum_values);
        for downgrade in &downgrades {
            prop_assert!(downgrade.used + downgrade.needs > downgrade.max);
        }
    }
}

fn count_enum_values(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| match (key.as_str(), value) {
                ("enum", Value::Array(values)) => values.len(),
                ("properties" | "$defs", Value::Object(children)) => {
                    children.values().map(count_enum_values).sum()
                }
                _ => count_enum_values(value),
            })
            .sum(),
        Value::Array(items) => items.iter().map(count_enum_values).sum(),
        _ => 0,
    }
}
