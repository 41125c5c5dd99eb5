//! Exact numbers (issue 26, item 6): every integer type up to 64 bits states its range
//! exactly in every format that states it (Anthropic's strict schema, which may hold no
//! numeric bounds, in the property's description), so `u64::MAX`, `i64::MIN` and `i64::MAX` pass
//! the rendered schema (judged by the `jsonschema` crate, an independent validator) and the
//! gate alike, with or without a declared constraint that makes the gate validate; an `f32`
//! has its range in every format, Gemini's declaration included; and valid JSON holding a
//! number no reader can hold (`1e400`) is invalid arguments naming the field, not
//! "malformed JSON", for compiled and runtime tools; a 128-bit integer out of its range
//! says the field and the range the schema states.

use serde_json::{Value, json};
use toolset::consumer::{Format, Order, tool_list};
use toolset::prelude::*;
use toolset::report::ProblemKind;
use toolset::{Autonomy, DynamicTool, Tier, ToolCall, ToolContext, tool, toolset};

/// The state: none is needed.
pub struct Nothing;

/// Record numbers of every width.
#[tool(tier = "read_only")]
pub async fn record(
    /// An unsigned 64-bit count.
    count: u64,
    /// A signed 64-bit offset.
    offset: i64,
    /// A byte.
    byte: u8,
    /// A single-precision ratio.
    ratio: f32,
) -> String {
    format!("{count} {offset} {byte} {ratio}")
}

/// Record a bounded count: the declared minimum makes the gate validate the schema too.
#[tool(tier = "read_only")]
pub async fn record_bounded(
    /// At least one.
    #[schemars(range(min = 1))]
    count: u64,
    /// At most zero.
    #[schemars(range(max = 0))]
    offset: i64,
) -> String {
    format!("{count} {offset}")
}

/// Record 128-bit numbers, whose range the schema can only state as doubles.
#[tool(tier = "read_only")]
pub async fn record_wide(
    /// An unsigned 128-bit total.
    total: u128,
    /// A signed 128-bit balance.
    balance: i128,
) -> String {
    format!("{total} {balance}")
}

/// Record a bounded 128-bit total: the declared minimum makes the gate validate the
/// schema, whose 128-bit bounds are doubles.
#[tool(tier = "read_only")]
pub async fn record_wide_bounded(
    /// At least one.
    #[schemars(range(min = 1))]
    total: u128,
    /// A signed 128-bit balance.
    balance: i128,
) -> String {
    format!("{total} {balance}")
}

/// Record lists of 128-bit numbers: arguments holding an array are validated against the
/// schema too.
#[tool(tier = "read_only")]
pub async fn record_wide_lists(
    /// Unsigned 128-bit totals.
    totals: Vec<u128>,
    /// Signed 128-bit balances.
    balances: Vec<i128>,
) -> String {
    format!("{totals:?} {balances:?}")
}

toolset! { pub Numbers<Nothing> = [record, record_bounded, record_wide, record_wide_bounded, record_wide_lists]; }

/// The JSON formats with a JSON Schema of the arguments, and where it sits in a tool.
const JSON_SCHEMA_FORMATS: [(Format, &str); 4] = [
    (Format::OpenAiChat, "/function/parameters"),
    (Format::OpenAiResponses, "/parameters"),
    (Format::Anthropic, "/input_schema"),
    (Format::Mcp, "/inputSchema"),
];

/// The rendered tool `name` in `format`.
fn rendered_tool(format: Format, name: &str) -> Value {
    let list: Value = serde_json::from_str(tool_list::<Numbers>(format, Order::Declared))
        .expect("a JSON format renders JSON");
    list.as_array()
        .and_then(|tools| {
            tools.iter().find(|tool| {
                tool.pointer("/function/name")
                    .or_else(|| tool.get("name"))
                    .and_then(Value::as_str)
                    == Some(name)
            })
        })
        .cloned()
        .unwrap_or_else(|| panic!("{format} renders {name}"))
}

/// The (minimum, maximum) a rendered property states, as written: its `minimum` and
/// `maximum`, or in an Anthropic strict tool (which carries no numeric bounds) the
/// description's "From {min} to {max}.".
fn bounds(tool: &Value, property: &Value) -> (String, String) {
    if tool.get("strict") == Some(&Value::Bool(true)) && tool.get("input_schema").is_some() {
        assert!(property.get("minimum").is_none(), "{property}");
        let description = property["description"].as_str().unwrap_or_default();
        let range = description
            .split("From ")
            .nth(1)
            .and_then(|rest| rest.split_once(" to "))
            .map(|(min, rest)| (min, rest.split(". ").next().unwrap_or(rest)))
            .unwrap_or_else(|| panic!("no range in {property}"));
        return (range.0.to_owned(), range.1.trim_end_matches('.').to_owned());
    }
    (
        property["minimum"].to_string(),
        property["maximum"].to_string(),
    )
}

fn gate(name: &str, arguments: &str) -> Result<(), (ProblemKind, String)> {
    Numbers::gate([ToolCall::new("c1", name, arguments)], Autonomy::ReadOnly)
        .map(|_| ())
        .map_err(|rejected| {
            let problem = &rejected.problems()[0];
            (problem.kind, problem.message.clone())
        })
}

#[test]
fn the_64_bit_extremes_pass_every_rendered_schema_and_the_gate() {
    let extremes = [
        (
            "record",
            json!({"count": u64::MAX, "offset": i64::MIN, "byte": 255, "ratio": 1.5}),
        ),
        (
            "record",
            json!({"count": 0, "offset": i64::MAX, "byte": 0, "ratio": f32::MAX}),
        ),
        (
            "record_bounded",
            json!({"count": u64::MAX, "offset": i64::MIN}),
        ),
    ];
    for (format, at) in JSON_SCHEMA_FORMATS {
        for (name, arguments) in &extremes {
            let tool = rendered_tool(format, name);
            let schema = tool.pointer(at).expect("the tool has a schema");
            let validator = jsonschema::validator_for(schema)
                .unwrap_or_else(|error| panic!("{format} {name}: {error}"));
            assert!(
                validator.is_valid(arguments),
                "{format} {name} refuses {arguments}: {schema:#}"
            );
        }
        // The bounds are the types' own, written as JSON integers.
        let record = rendered_tool(format, "record");
        let schema = record.pointer(at).expect("the tool has a schema");
        let properties = &schema["properties"];
        assert_eq!(
            bounds(&record, &properties["count"]).1,
            u64::MAX.to_string(),
            "{format}"
        );
        assert_eq!(
            bounds(&record, &properties["offset"]),
            (i64::MIN.to_string(), i64::MAX.to_string()),
            "{format}"
        );
    }
    for (name, arguments) in &extremes {
        assert_eq!(
            gate(name, &arguments.to_string()),
            Ok(()),
            "{name} {arguments}"
        );
    }
}

#[test]
fn one_past_a_64_bit_extreme_is_refused_naming_the_field() {
    for (arguments, field) in [
        (
            r#"{"count":18446744073709551616,"offset":0,"byte":0,"ratio":0}"#,
            "/count",
        ),
        (
            r#"{"count":0,"offset":-9223372036854775809,"byte":0,"ratio":0}"#,
            "/offset",
        ),
        (
            r#"{"count":0,"offset":9223372036854775808,"byte":0,"ratio":0}"#,
            "/offset",
        ),
    ] {
        let (kind, message) = gate("record", arguments).expect_err(arguments);
        assert_eq!(kind, ProblemKind::InvalidArguments, "{message}");
        assert!(message.contains(field), "{arguments}: {message}");
    }
    let (kind, message) =
        gate("record_bounded", r#"{"count":0,"offset":0}"#).expect_err("count below 1");
    assert_eq!(kind, ProblemKind::InvalidArguments, "{message}");
    assert!(message.contains("/count"), "{message}");
}

#[test]
fn an_f32_has_its_range_in_every_format_gemini_included() {
    let top = f64::from(f32::MAX);
    for (format, at) in JSON_SCHEMA_FORMATS
        .into_iter()
        .chain([(Format::Gemini, "/parameters")])
    {
        let tool = rendered_tool(format, "record");
        let ratio = &tool.pointer(at).expect("a schema")["properties"]["ratio"];
        let (min, max) = bounds(&tool, ratio);
        assert_eq!(min.parse::<f64>().ok(), Some(-top), "{format}: {ratio}");
        assert_eq!(max.parse::<f64>().ok(), Some(top), "{format}: {ratio}");
    }
    // Beyond it, the gate refuses too, at the field.
    let (kind, message) =
        gate("record", r#"{"count":0,"offset":0,"byte":0,"ratio":1e39}"#).expect_err("beyond f32");
    assert_eq!(kind, ProblemKind::InvalidArguments, "{message}");
    assert!(message.contains("/ratio"), "{message}");
}

#[test]
fn a_number_no_reader_holds_is_invalid_arguments_naming_the_field() {
    for (arguments, field) in [
        (r#"{"count":0,"offset":0,"byte":1e400,"ratio":0}"#, "/byte"),
        (
            r#"{"count":0,"offset":0,"byte":0,"ratio":-1e400}"#,
            "/ratio",
        ),
        (r#"{"count":1e400,"offset":0,"byte":0,"ratio":0}"#, "/count"),
    ] {
        let (kind, message) = gate("record", arguments).expect_err(arguments);
        assert_eq!(
            kind,
            ProblemKind::InvalidArguments,
            "{arguments}: {message}"
        );
        assert!(message.contains(field), "{arguments}: {message}");
        assert!(!message.contains("not valid JSON"), "{message}");
    }
    // JSON that is malformed stays malformed, even with such a number in it.
    let (kind, _) =
        gate("record", r#"{"count":1e400,"offset":0,"byte":0,"ratio":0"#).expect_err("cut off");
    assert_eq!(kind, ProblemKind::MalformedJson);
}

#[test]
fn a_runtime_tool_names_the_unreadable_number_too() {
    async fn echo(arguments: Value, _ctx: &ToolContext) -> String {
        arguments.to_string()
    }
    let toolbox = Numbers::toolbox()
        .with(
            DynamicTool::new("scale", Tier::ReadOnly, "Scale by a factor.")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"by": {"type": "object", "properties": {
                        "factor": {"type": "number"}}}},
                    "required": ["by"]
                }))
                .handler(echo),
        )
        .expect("the tool registers");
    let policy = Numbers::policy(Autonomy::ReadOnly);
    let request = toolbox.request(&policy).expect("the policy names no tool");
    let rejected = request
        .gate([ToolCall::new("c1", "scale", r#"{"by":{"factor":1e400}}"#)])
        .expect_err("1e400 is no double");
    let problem = &rejected.problems()[0];
    assert_eq!(
        problem.kind,
        ProblemKind::InvalidArguments,
        "{}",
        problem.message
    );
    assert!(
        problem.message.contains("/by/factor"),
        "{}",
        problem.message
    );
    assert!(
        request
            .gate([ToolCall::new("c1", "scale", r#"{"by":{"factor":1e300}}"#)])
            .is_ok()
    );
}

#[test]
fn a_128_bit_integer_out_of_range_names_the_field_and_the_range_stated() {
    for (arguments, field) in [
        (r#"{"total":-1,"balance":0}"#, "/total"),
        (
            r#"{"total":340282366920938463463374607431768211456,"balance":0}"#,
            "/total",
        ),
        (r#"{"total":0,"balance":1e39}"#, "/balance"),
    ] {
        let (kind, message) = gate("record_wide", arguments).expect_err(arguments);
        assert_eq!(
            kind,
            ProblemKind::InvalidArguments,
            "{arguments}: {message}"
        );
        assert!(
            message.contains(&format!("{field}: expected an integer from ")),
            "{arguments}: {message}"
        );
    }
    let extremes = format!(r#"{{"total":{},"balance":{}}}"#, u128::MAX, i128::MIN);
    assert_eq!(
        gate("record_wide", &extremes),
        Ok(()),
        "serde takes the extremes"
    );
}

/// The 128-bit extremes as each wide tool takes them: (tool, arguments as JSON text, what
/// the handler writes back).
fn wide_extremes() -> Vec<(&'static str, String, String)> {
    let mut cases = Vec::new();
    for (total, balance) in [
        (u128::MAX, i128::MAX),
        (u128::MAX, i128::MIN),
        (1, i128::MIN),
    ] {
        let pair = format!(r#"{{"total":{total},"balance":{balance}}}"#);
        cases.push(("record_wide", pair.clone(), format!("{total} {balance}")));
        cases.push(("record_wide_bounded", pair, format!("{total} {balance}")));
        cases.push((
            "record_wide_lists",
            format!(r#"{{"totals":[{total},0],"balances":[{balance},0]}}"#),
            format!("[{total}, 0] [{balance}, 0]"),
        ));
    }
    cases
}

#[test]
fn the_128_bit_extremes_pass_the_gate_and_run_with_their_exact_values() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    for (name, arguments, written) in wide_extremes() {
        let plan = Numbers::gate(
            [ToolCall::new("c1", name, arguments.as_str())],
            Autonomy::ReadOnly,
        )
        .unwrap_or_else(|rejected| panic!("{name} {arguments}: {:?}", rejected.problems()));
        let report = runtime.block_on(Numbers::apply(&mut Nothing, &ToolContext::default(), plan));
        let (_, outcome) = report.outcomes().next().expect("one outcome");
        assert!(outcome.is_done(), "{name} {arguments}: {outcome:?}");
        assert_eq!(
            outcome.to_tool_output().text_content(),
            written,
            "{name} {arguments}"
        );
    }
}

#[test]
fn every_rendered_schema_accepts_the_128_bit_extremes() {
    for (format, at) in JSON_SCHEMA_FORMATS
        .into_iter()
        .chain([(Format::Gemini, "/parameters")])
    {
        for (name, arguments, _) in wide_extremes() {
            let tool = rendered_tool(format, name);
            let schema = tool.pointer(at).expect("the tool has a schema");
            let validator = jsonschema::validator_for(schema)
                .unwrap_or_else(|error| panic!("{format} {name}: {error}"));
            // What a validator reads: serde_json holds these as the nearest doubles.
            let instance: Value = serde_json::from_str(&arguments).expect("JSON");
            assert!(
                validator.is_valid(&instance),
                "{format} {name} refuses {arguments}: {schema:#}"
            );
        }
    }
}

#[test]
fn one_past_a_128_bit_extreme_is_refused_naming_the_field() {
    let past_u128 = "340282366920938463463374607431768211456";
    let past_i128_top = "170141183460469231731687303715884105728";
    let past_i128_bottom = "-170141183460469231731687303715884105729";
    for name in ["record_wide", "record_wide_bounded"] {
        for (arguments, field) in [
            (format!(r#"{{"total":{past_u128},"balance":0}}"#), "/total"),
            (r#"{"total":-1,"balance":0}"#.to_owned(), "/total"),
            (
                format!(r#"{{"total":1,"balance":{past_i128_top}}}"#),
                "/balance",
            ),
            (
                format!(r#"{{"total":1,"balance":{past_i128_bottom}}}"#),
                "/balance",
            ),
        ] {
            let (kind, message) = gate(name, &arguments).expect_err(&arguments);
            assert_eq!(
                kind,
                ProblemKind::InvalidArguments,
                "{name} {arguments}: {message}"
            );
            assert!(message.contains(field), "{name} {arguments}: {message}");
        }
    }
    // The words say the type's exact range and the number as it was sent.
    for (arguments, said) in [
        (
            format!(r#"{{"total":{past_u128},"balance":0}}"#),
            format!(
                "/total: expected an integer from 0 to {}, got {past_u128}",
                u128::MAX
            ),
        ),
        (
            format!(r#"{{"total":0,"balance":{past_i128_top}}}"#),
            format!(
                "/balance: expected an integer from {} to {}, got {past_i128_top}",
                i128::MIN,
                i128::MAX
            ),
        ),
    ] {
        let (_, message) = gate("record_wide", &arguments).expect_err(&arguments);
        assert!(message.contains(&said), "{message}");
    }
    let arguments = format!(r#"{{"totals":[{past_u128}],"balances":[]}}"#);
    let (kind, message) = gate("record_wide_lists", &arguments).expect_err(&arguments);
    assert_eq!(kind, ProblemKind::InvalidArguments, "{message}");
    assert!(message.contains("/totals"), "{message}");
}

/// What `program script` says of `cases` (JSON text), written to `file`: its exit code and
/// its output.
fn judged(program: &str, script: &str, cases: &str, file: &str) -> (Option<i32>, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(file);
    std::fs::write(&path, cases).expect("the target's tmp dir is writable");
    let output = std::process::Command::new(program)
        .arg(root.join(script))
        .arg(&path)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run {program}: {error}; install the validators with `python3 -m pip \
                 install -r tests/validators/requirements.txt` and `npm ci --prefix \
                 tests/validators` (./scripts/test does both)"
            )
        });
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code(), text)
}

#[test]
fn python_and_ajv_accept_the_128_bit_extremes_in_every_rendered_schema() {
    // The instances keep their digits: Python reads them exactly, Ajv as doubles.
    let mut cases = Vec::new();
    for (format, at) in JSON_SCHEMA_FORMATS {
        for (name, arguments, _) in wide_extremes() {
            let tool = rendered_tool(format, name);
            let schema = tool.pointer(at).expect("the tool has a schema");
            let label = Value::from(format!("{format} {name} {arguments}"));
            cases.push(format!(
                r#"{{"label":{label},"schema":{schema},"instance":{arguments}}}"#
            ));
        }
    }
    let cases = format!("[{}]", cases.join(","));
    for (program, script, file) in [
        (
            "python3",
            "tests/validators/validate_instances.py",
            "wide-python.json",
        ),
        (
            "node",
            "tests/validators/ajv_instances.mjs",
            "wide-ajv.json",
        ),
    ] {
        let (code, output) = judged(program, script, &cases, file);
        assert_eq!(code, Some(0), "{script}:\n{output}");
    }
}

#[test]
fn a_128_bit_extreme_a_transport_parsed_into_a_double_is_refused_naming_the_field() {
    // An MCP `tools/call` arrives parsed (rmcp's `serde_json::Value`, without
    // `arbitrary_precision`): `u128::MAX` is the double 2^128 by then, its exact value
    // gone. The gate refuses it rather than run with another number, and says so.
    let text = format!(r#"{{"total":{},"balance":0}}"#, u128::MAX);
    let parsed: Value = serde_json::from_str(&text).expect("JSON");
    let arguments = toolset::call::Arguments::object(parsed).expect("an object");
    let rejected = Numbers::gate(
        [ToolCall::new("c1", "record_wide", arguments)],
        Autonomy::ReadOnly,
    )
    .expect_err("the exact value is lost");
    let problem = &rejected.problems()[0];
    assert_eq!(problem.kind, ProblemKind::InvalidArguments);
    assert!(
        problem.message.contains(&format!(
            "/total: expected an integer from 0 to {}",
            u128::MAX
        )),
        "{}",
        problem.message
    );
}
