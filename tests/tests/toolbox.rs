//! Tools defined at run time: a toolbox's runtime tools pass the same gate, plan, apply,
//! proposals and renderers as the compiled set's, and registration checks what the
//! compiler checks.

use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolset::consumer::{Format, tool_value};
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::{
    Autonomy, DynamicTool, Tier, ToolCall, ToolContext, ToolError, ToolOutput, Toolbox, tool,
    toolset,
};

/// The compiled side: a desk of notes.
#[derive(Default)]
pub struct Desk {
    log: Vec<String>,
}

/// Counters of the reads running at once, shared by compiled and runtime readers.
static READS_ACTIVE: AtomicUsize = AtomicUsize::new(0);
static READS_PEAK: AtomicUsize = AtomicUsize::new(0);

async fn reading() {
    let now = READS_ACTIVE.fetch_add(1, Ordering::SeqCst) + 1;
    READS_PEAK.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    READS_ACTIVE.fetch_sub(1, Ordering::SeqCst);
}

/// Read a note.
#[tool(tier = "read_only")]
pub async fn read_note(_desk: &Desk, key: String) -> String {
    reading().await;
    format!("note {key}")
}

/// Write a note.
#[tool(tier = "reversible")]
pub async fn write_note(desk: &mut Desk, key: String) -> String {
    assert_eq!(
        READS_ACTIVE.load(Ordering::SeqCst),
        0,
        "a write overlapped a read"
    );
    desk.log.push(format!("write {key}"));
    format!("wrote {key}")
}

toolset! { pub DeskTools<Desk> = [read_note, write_note]; }

/// A closed object schema with one required string argument `city`.
fn city_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city.", "minLength": 1}},
        "required": ["city"],
        "additionalProperties": false
    })
}

async fn weather(args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    reading().await;
    Ok(ToolOutput::text(format!(
        "Sunny in {}.",
        args["city"].as_str().unwrap_or("?")
    )))
}

/// The runtime writes, in the order they ran (shared with the compiled log through order
/// of outcomes).
static RUNTIME_WRITES: AtomicUsize = AtomicUsize::new(0);

fn toolbox() -> Toolbox<DeskTools> {
    DeskTools::toolbox()
        .with_all([
            DynamicTool::new("weather", Tier::ReadOnly, "Today's weather for a city.")
                .input_schema(city_schema())
                .handler(weather),
            DynamicTool::new("book_taxi", Tier::Reversible, "Book a taxi to a city.")
                .input_schema(city_schema())
                .handler(|args: Value, _ctx: &ToolContext| async move {
                    assert_eq!(
                        READS_ACTIVE.load(Ordering::SeqCst),
                        0,
                        "a write overlapped a read"
                    );
                    RUNTIME_WRITES.fetch_add(1, Ordering::SeqCst);
                    format!("taxi to {}", args["city"].as_str().unwrap_or("?"))
                }),
            DynamicTool::new(
                "wire_money",
                Tier::Irreversible,
                "Send money to a city's bank.",
            )
            .input_schema(city_schema())
            .preview(|args| Some(format!("Wire money to {}", args["city"])))
            .handler(|_args: Value, _ctx: &ToolContext| async move {
                explode("an irreversible runtime tool ran without approval")
            }),
        ])
        .expect("the test toolbox registers")
}

/// A handler's body that panics, typed as a handler's result.
fn explode(message: &str) -> String {
    panic!("{message}")
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

#[tokio::test]
async fn a_mixed_program_is_gated_and_applied_as_one_with_outcomes_in_model_order() {
    let toolbox = toolbox();
    let policy = DeskTools::policy(Autonomy::Reversible);
    let program = vec![
        call("1", "read_note", r#"{"key":"a"}"#),
        call("2", "weather", r#"{"city":"Oslo"}"#),
        call("3", "write_note", r#"{"key":"b"}"#),
        call("4", "book_taxi", r#"{"city":"Bergen"}"#),
        call("5", "wire_money", r#"{"city":"Rome"}"#),
        call("6", "weather", r#"{"city":"Lima"}"#),
    ];

    // One bad runtime call rejects the whole program, compiled calls included.
    let mut bad = program.clone();
    bad[3] = call("4", "book_taxi", r#"{"city":""}"#);
    let rejected = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate(bad)
        .expect_err("a bad runtime call rejects all");
    assert_eq!(rejected.problems().len(), 1);
    assert_eq!(rejected.problems()[0].call_id, "4");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::InvalidArguments);
    assert_eq!(rejected.results().len(), 6, "every call is answered");

    let plan = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate(program)
        .expect("the program is valid");
    let proposed: Vec<&str> = plan
        .proposals()
        .iter()
        .map(|p| p.call().id.as_str())
        .collect();
    assert_eq!(
        proposed,
        ["5"],
        "only the irreversible runtime call is withheld"
    );
    assert_eq!(plan.proposals()[0].tier(), Tier::Irreversible);
    assert_eq!(
        toolbox.preview(&plan.proposals()[0]).as_deref(),
        Some("Wire money to \"Rome\"")
    );

    READS_PEAK.store(0, Ordering::SeqCst);
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    let ids: Vec<&str> = report
        .entries()
        .iter()
        .map(|e| e.call.id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["1", "2", "3", "4", "5", "6"],
        "outcomes in the model's order"
    );
    let texts: Vec<Option<String>> = report
        .entries()
        .iter()
        .map(|entry| match &entry.outcome {
            Some(Outcome::Done(output)) => Some(output.text_content()),
            Some(other) => panic!("call {} ended {other:?}", entry.call.id),
            None => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            Some("note a".to_owned()),
            Some("Sunny in Oslo.".to_owned()),
            Some("wrote b".to_owned()),
            Some("taxi to Bergen".to_owned()),
            None,
            Some("Sunny in Lima.".to_owned()),
        ]
    );
    assert_eq!(
        READS_PEAK.load(Ordering::SeqCst),
        2,
        "the compiled and the runtime read ran together"
    );
    assert_eq!(desk.log, ["write b"]);
    assert_eq!(report.entries()[1].tier, Tier::ReadOnly);
    assert_eq!(report.entries()[4].tier, Tier::Irreversible);
}

#[test]
fn an_unoffered_runtime_tool_is_unknown_to_the_gate() {
    let policy = DeskTools::policy(Autonomy::Reversible);
    let weather_call = || vec![call("1", "weather", r#"{"city":"Oslo"}"#)];

    // The set alone does not offer the runtime tool: unknown, with the offered names.
    let rejected = DeskTools::gate_with(weather_call(), &policy).expect_err("not offered");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);

    // A toolbox that dropped it: unknown, and the message lists what is offered.
    let toolbox = toolbox().without("weather");
    let request = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .format(Format::OpenAiChat);
    assert_eq!(
        request.offered(),
        ["read_note", "write_note", "book_taxi", "wire_money"]
    );
    assert!(!request.tool_list().contains("\"weather\""));
    let rejected = request.gate(weather_call()).expect_err("removed");
    let problem = &rejected.problems()[0];
    assert_eq!(problem.kind, ProblemKind::UnknownTool);
    assert!(
        problem
            .message
            .contains("read_note, write_note, book_taxi, wire_money"),
        "{}",
        problem.message
    );

    // What the list offers is what the gate permits, runtime tools included.
    let full = toolbox_with_weather();
    let request = full
        .request(&policy)
        .expect("no unknown runtime name")
        .format(Format::Anthropic);
    let list: Value = serde_json::from_str(&request.tool_list()).expect("a JSON list");
    let listed: Vec<&str> = list
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(listed, request.offered());
    for name in request.offered() {
        let arguments = if full
            .runtime_tool(name)
            .is_some_and(|tool| tool.spec().input_schema()["required"] == json!(["city"]))
        {
            r#"{"city":"Oslo"}"#
        } else {
            r#"{"key":"k"}"#
        };
        assert!(
            request.gate([call("1", name, arguments)]).is_ok(),
            "{name} is offered but refused"
        );
    }
}

fn toolbox_with_weather() -> Toolbox<DeskTools> {
    toolbox()
}

#[test]
fn registration_refuses_every_name_a_list_gives_a_tool_search() {
    for name in [
        toolset::search::SEARCH_TOOL_NAME,
        "tool_search_tool_bm25",
        "tool_search_tool_regex",
    ] {
        let error = toolbox()
            .with_all([
                // A reserved name, and an empty description: both said at once.
                DynamicTool::new(name, Tier::ReadOnly, " ").handler(weather),
            ])
            .expect_err("a reserved name never joins a toolbox");
        let messages: Vec<&str> = error
            .problems()
            .iter()
            .map(|problem| problem.message.as_str())
            .collect();
        assert_eq!(messages.len(), 2, "{messages:#?}");
        assert!(
            messages[0].starts_with(&format!("`{name}` is reserved for ")),
            "{messages:#?}"
        );
        assert!(
            messages[0].contains("name this tool something else"),
            "{messages:#?}"
        );
        assert!(
            messages[1].contains("the description is empty"),
            "{messages:#?}"
        );
    }
}

#[test]
fn registration_reports_every_problem_at_once() {
    let before = toolbox();
    let result = before.clone().with_all([
        // Four problems in one tool.
        DynamicTool::new("bad name!", Tier::ReadOnly, "  ").input_schema(json!({"type": "array"})),
        // A name the compiled set has.
        DynamicTool::new("read_note", Tier::ReadOnly, "Read.").handler(weather),
        // A name another runtime tool of the batch has.
        DynamicTool::new("forecast", Tier::ReadOnly, "A forecast.").handler(weather),
        DynamicTool::new("forecast", Tier::ReadOnly, "A forecast again.").handler(weather),
        // Not a schema at all, and an invalid one.
        DynamicTool::new("odd", Tier::ReadOnly, "Odd.")
            .input_schema(json!("object"))
            .handler(weather),
        DynamicTool::new("invalid", Tier::ReadOnly, "Invalid.")
            .input_schema(json!({"type": "object", "properties": {"a": {"type": "nonsense"}}}))
            .handler(weather),
        // Propose-only with a tier that could auto-run.
        DynamicTool::new("suggest", Tier::Reversible, "Suggest.").propose_only(),
    ]);
    let error = result.expect_err("every tool above is broken");
    let problems: Vec<(&str, &str)> = error
        .problems()
        .iter()
        .map(|p| (p.tool.as_str(), p.message.as_str()))
        .collect();
    let about = |tool: &str| problems.iter().filter(|(name, _)| *name == tool).count();
    assert_eq!(about("bad name!"), 4, "{problems:#?}");
    assert_eq!(about("read_note"), 1, "{problems:#?}");
    assert_eq!(about("forecast"), 1, "{problems:#?}");
    assert_eq!(about("odd"), 1, "{problems:#?}");
    assert_eq!(about("invalid"), 1, "{problems:#?}");
    assert_eq!(about("suggest"), 1, "{problems:#?}");
    let text = error.to_string();
    for needle in [
        "`bad name!` cannot be a tool name",
        "the description is empty",
        "must say `\"type\": \"object\"`",
        "it has no handler",
        "already has this name",
        "not a JSON Schema object but \"object\"",
        "not a valid JSON Schema (at /properties/a/type",
        "must never auto-run, but tier `reversible` can",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }

    // Nothing of a failed batch joins: the good toolbox is unchanged.
    assert_eq!(before.names().len(), 5);
    assert!(before.runtime_tool("forecast").is_none());
    // And a tool without arguments needs no schema.
    let plain = DeskTools::toolbox()
        .with(DynamicTool::new("ping", Tier::ReadOnly, "Ping.").handler(weather))
        .expect("a tool without arguments");
    assert!(
        plain
            .request(&DeskTools::policy(Autonomy::ReadOnly))
            .expect("no unknown runtime name")
            .gate([call("1", "ping", "")])
            .is_ok()
    );
}

#[test]
fn a_runtime_tool_renders_in_every_format_exactly_as_the_compiled_tool_with_its_spec() {
    /// Look up a word; strict mode applies.
    #[tool(tier = "read_only")]
    pub async fn lookup(
        /// The word.
        word: String,
        /// How many senses, at most.
        limit: Option<u8>,
    ) -> String {
        format!("{word} {limit:?}")
    }
    toolset! { Words = [lookup]; }

    let compiled = &Words::specs()[0];
    let toolbox = DeskTools::toolbox()
        .with(
            DynamicTool::new(compiled.name(), compiled.tier(), compiled.description())
                .input_schema(compiled.input_schema().clone())
                .handler(weather),
        )
        .expect("the compiled tool's own schema registers");
    let runtime = toolbox.runtime_tool("lookup").expect("registered");
    let runtime = runtime.spec();
    for format in Format::ALL {
        assert_eq!(
            tool_value(runtime, format),
            tool_value(compiled, format),
            "{format} renders the runtime tool differently"
        );
    }
    // The strict adaptation applied: OpenAI gets a strict tool.
    assert_eq!(
        tool_value(runtime, Format::OpenAiChat)["function"]["strict"],
        true
    );
    // And the toolbox's list carries it after the set's tools, same bytes every time.
    let list = toolbox.tool_list(Format::Gemini);
    assert_eq!(list, toolbox.tool_list(Format::Gemini));
    let names: Vec<String> = serde_json::from_str::<Vec<Value>>(&list)
        .expect("a JSON list")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["read_note", "write_note", "lookup"]);
}

#[tokio::test]
async fn a_runtime_tool_that_panics_or_runs_too_long_fails_alone() {
    let toolbox = DeskTools::toolbox()
        .with_all([
            DynamicTool::new("crash", Tier::Reversible, "Crash.")
                .handler(|_: Value, _: &ToolContext| async move { explode("boom") }),
            DynamicTool::new("slow", Tier::ReadOnly, "Slow.")
                .timeout_ms(20)
                .handler(|_: Value, _: &ToolContext| async move {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    "late"
                }),
        ])
        .expect("registers");
    let plan = toolbox
        .request(&DeskTools::policy(Autonomy::Reversible))
        .expect("no unknown runtime name")
        .gate([
            call("1", "crash", "{}"),
            call("2", "slow", "{}"),
            call("3", "write_note", r#"{"key":"after"}"#),
        ])
        .expect("valid");
    let mut desk = Desk::default();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    let kinds: Vec<&str> = report
        .outcomes()
        .map(|(_, outcome)| outcome.kind())
        .collect();
    assert_eq!(kinds, ["panicked", "timed_out", "done"]);
    assert_eq!(desk.log, ["write after"]);
}

/// A schema with constraints of every common kind, nested.
fn constrained_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[A-Z]"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"enum": ["c", "f"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "at": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "required": ["lat"],
                "additionalProperties": false
            }
        },
        "required": ["city"],
        "additionalProperties": false
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..12).prop_map(Value::from),
        (-2.0f64..9.0).prop_map(Value::from),
        prop::sample::select(vec!["", "c", "f", "Oslo", "oslo", "Reykjavik", "A", "Lima"])
            .prop_map(Value::from),
    ];
    let keys = prop::sample::select(vec![
        "city", "days", "unit", "tags", "at", "lat", "lon", "x",
    ]);
    leaf.prop_recursive(3, 24, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(keys.clone(), inner, 0..5).prop_map(|map| Value::Object(
                map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_runtime_tools_schema_verdict_equals_the_gates(arguments in json_value()) {
        let schema = constrained_schema();
        let toolbox = DeskTools::toolbox()
            .with(DynamicTool::new("forecast", Tier::ReadOnly, "A forecast.")
                .input_schema(schema.clone())
                .handler(weather))
            .expect("registers");
        let oracle = jsonschema::validator_for(&schema).expect("compiles");
        let verdict = toolbox.request(&DeskTools::policy(Autonomy::ReadOnly)).expect("no unknown runtime name").gate([call("1", "forecast", &arguments.to_string())]);
        prop_assert_eq!(verdict.is_ok(), oracle.is_valid(&arguments), "{}", arguments);
        if let Err(rejected) = verdict {
            let problem = &rejected.problems()[0];
            prop_assert_eq!(problem.kind, ProblemKind::InvalidArguments);
            // The compiled tools' sentence, each problem starting with its JSON path.
            prop_assert!(problem.message.contains(": /") || problem.message.contains(": expected"),
                "{}", problem.message);
        }
    }
}

#[test]
fn a_runtime_tools_messages_name_the_json_path_like_a_compiled_tools() {
    let toolbox = DeskTools::toolbox()
        .with(
            DynamicTool::new("forecast", Tier::ReadOnly, "A forecast.")
                .input_schema(constrained_schema())
                .handler(weather),
        )
        .expect("registers");
    let policy = DeskTools::policy(Autonomy::ReadOnly);
    let rejected = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([call(
            "1",
            "forecast",
            r#"{"days":9,"at":{"lon":1},"extra":true}"#,
        )])
        .expect_err("four problems");
    let message = &rejected.problems()[0].message;
    for needle in ["/city", "/days: expected", "got 9", "/at/lat", "/extra"] {
        assert!(message.contains(needle), "missing {needle:?} in {message}");
    }
    let malformed = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([call("1", "forecast", "{\"city\":")])
        .expect_err("malformed");
    assert_eq!(malformed.problems()[0].kind, ProblemKind::MalformedJson);
    let array = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([call("1", "forecast", "[1]")])
        .expect_err("not an object");
    assert!(
        array.problems()[0]
            .message
            .contains("expected an object of named arguments, got an array"),
        "{}",
        array.problems()[0].message
    );
    let _ = Arc::new(());
}

/// A runtime reader of the desk's state: how many notes it holds, after 100 ms.
async fn count_notes(_args: Value, desk: &Desk, _ctx: &ToolContext) -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    format!("{} notes", desk.log.len())
}

/// A runtime writer of the desk's state.
async fn stamp_note(args: Value, desk: &mut Desk, _ctx: &ToolContext) -> Result<String, ToolError> {
    let Some(key) = args["key"].as_str() else {
        return Err(ToolError::failed("no key"));
    };
    desk.log.push(format!("stamp {key}"));
    Ok(format!("stamped {key}"))
}

fn key_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"key": {"type": "string", "description": "The note's key."}},
        "required": ["key"],
        "additionalProperties": false
    })
}

fn stateful_toolbox() -> Toolbox<DeskTools> {
    DeskTools::toolbox()
        .with_all([
            DynamicTool::new(
                "count_notes",
                Tier::ReadOnly,
                "How many notes the desk holds.",
            )
            .reads_state(count_notes),
            DynamicTool::new("stamp_note", Tier::Reversible, "Stamp a note on the desk.")
                .input_schema(key_schema())
                .writes_state(stamp_note),
        ])
        .expect("both register")
}

fn text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Done(output) => output.text_content(),
        other => panic!("not done: {other:?}"),
    }
}

#[tokio::test]
async fn a_runtime_handler_reads_the_real_state_and_another_writes_it_through_gate_and_apply() {
    let toolbox = stateful_toolbox();
    let policy = DeskTools::policy(Autonomy::Reversible);
    let mut desk = Desk {
        log: vec!["first".into()],
    };
    let plan = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([
            call("1", "count_notes", "{}"),
            call("2", "stamp_note", r#"{"key":"k"}"#),
            call("3", "write_note", r#"{"key":"w"}"#),
            call("4", "count_notes", "{}"),
        ])
        .expect("the program is valid");
    assert!(plan.proposals().is_empty(), "all within reversible");
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    let outcomes: Vec<String> = report.outcomes().map(|(_, o)| text(o)).collect();
    assert_eq!(
        outcomes,
        ["1 notes", "stamped k", "wrote w", "3 notes"],
        "the runtime reader sees the state the runtime and compiled writers changed"
    );
    assert_eq!(
        desk.log,
        ["first", "stamp k", "write w"],
        "the real state was written"
    );
}

#[tokio::test]
async fn read_only_runtime_calls_reading_the_state_run_together_with_compiled_reads() {
    let toolbox = stateful_toolbox();
    let policy = DeskTools::policy(Autonomy::ReadOnly);
    let mut desk = Desk::default();
    let plan = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate([
            call("1", "read_note", r#"{"key":"a"}"#),
            call("2", "count_notes", "{}"),
            call("3", "count_notes", "{}"),
        ])
        .expect("the program is valid");
    let started = std::time::Instant::now();
    let report = DeskTools::apply(&mut desk, &ToolContext::default(), plan).await;
    let elapsed = started.elapsed();
    assert!(report.outcomes().all(|(_, o)| o.is_done()));
    // 30 ms, then 100 ms twice: one after the other would take 230 ms at least.
    assert!(
        elapsed < Duration::from_millis(200),
        "the three reads took {elapsed:?}: they did not run together"
    );
}

#[test]
fn registration_refuses_a_read_only_tool_writing_the_state_and_a_handler_of_another_state() {
    struct Other;
    async fn other(_args: Value, _other: &Other, _ctx: &ToolContext) -> String {
        String::new()
    }
    let error = DeskTools::toolbox()
        .with_all([
            DynamicTool::new(
                "sneaky_write",
                Tier::ReadOnly,
                "Writes while claiming to read.",
            )
            .input_schema(key_schema())
            .writes_state(stamp_note),
            DynamicTool::new("foreign", Tier::ReadOnly, "Reads a state the desk is not.")
                .reads_state(other),
        ])
        .expect_err("both are refused");
    let problems = error.problems();
    assert_eq!(problems.len(), 2, "{error}");
    assert_eq!(problems[0].tool, "sneaky_write");
    assert!(
        problems[0].message.contains(
            "a `read_only` tool takes the state as `&toolbox::Desk`, not `&mut toolbox::Desk`"
        ),
        "{}",
        problems[0].message
    );
    assert_eq!(problems[1].tool, "foreign");
    assert!(
        problems[1].message.contains("Other")
            && problems[1].message.contains("Desk")
            && problems[1].message.contains("DeskTools"),
        "{}",
        problems[1].message
    );
}

/// The weather toolbox of [`toolbox_with_weather`] under `policy`, gating one call.
fn gate_weather(policy: &toolset::Policy<DeskTools>) -> Result<usize, (ProblemKind, String)> {
    let toolbox = toolbox_with_weather();
    let request = toolbox.request(policy).expect("weather is a runtime tool");
    request
        .gate([call("1", "weather", r#"{"city":"Oslo"}"#)])
        .map(|plan| plan.approved().count())
        .map_err(|rejected| {
            let problem = &rejected.problems()[0];
            (problem.kind, problem.message.clone())
        })
}

#[test]
fn a_policy_denies_a_runtime_tool_by_name_and_the_gate_refuses_it() {
    let policy = DeskTools::policy(Autonomy::ReadOnly).deny("weather");
    let toolbox = toolbox_with_weather();
    let request = toolbox.request(&policy).expect("weather is a runtime tool");
    assert!(
        !request.offered().contains(&"weather"),
        "{:?}",
        request.offered()
    );
    let (kind, _) = gate_weather(&policy).expect_err("denied");
    assert_eq!(kind, ProblemKind::Denied);
}

#[test]
fn a_hidden_runtime_tool_is_answered_exactly_as_a_name_no_tool_has() {
    let policy = DeskTools::policy(Autonomy::ReadOnly).hide("weather");
    let toolbox = toolbox_with_weather();
    let request = toolbox.request(&policy).expect("weather is a runtime tool");
    assert!(!request.offered().contains(&"weather"));
    assert!(!request.tool_list().contains("weather"), "listed");
    let hidden = request
        .gate([call("1", "weather", "{}")])
        .expect_err("hidden");
    let unknown = request
        .gate([call("1", "weathr", "{}")])
        .expect_err("unknown");
    assert_eq!(hidden.problems()[0].kind, ProblemKind::UnknownTool);
    assert_eq!(
        hidden.problems()[0].message.replace("weather", "NAME"),
        unknown.problems()[0].message.replace("weathr", "NAME"),
        "a hidden runtime tool reads as a name no tool has"
    );
    assert!(
        !unknown.problems()[0].message.contains("\"weather\""),
        "did-you-mean suggested a hidden tool: {}",
        unknown.problems()[0].message
    );
    // The history's declaration of it is the stand-in of an unknown name.
    let with_history = toolbox
        .request(&policy)
        .expect("weather is a runtime tool")
        .format(Format::OpenAiChat)
        .history(["weather", "weathr"]);
    let list: Value = serde_json::from_str(&with_history.tool_list()).expect("JSON");
    let descriptions: Vec<&Value> = list
        .as_array()
        .expect("an array")
        .iter()
        .filter(|tool| {
            let name = tool["function"]["name"].as_str();
            name == Some("weather") || name == Some("weathr")
        })
        .map(|tool| &tool["function"]["description"])
        .collect();
    assert_eq!(descriptions.len(), 2);
    assert_eq!(descriptions[0], descriptions[1], "the same stand-in");
}

#[tokio::test]
async fn a_deferred_runtime_tool_is_offered_only_once_the_tool_search_found_it() {
    let policy = DeskTools::policy(Autonomy::ReadOnly).defer("weather");
    let toolbox = toolbox_with_weather();
    let request = toolbox.request(&policy).expect("weather is a runtime tool");
    assert_eq!(
        request.offered(),
        [
            "read_note",
            "write_note",
            "book_taxi",
            "wire_money",
            "tool_search"
        ]
    );
    assert_eq!(
        gate_weather(&policy).expect_err("deferred").0,
        ProblemKind::UnknownTool
    );
    let plan = request
        .gate([call("s", "tool_search", r#"{"query":"weather city"}"#)])
        .expect("a search");
    let report = DeskTools::apply(&mut Desk::default(), &ToolContext::default(), plan).await;
    let mut activations = toolset::request::Activations::new();
    assert_eq!(activations.record(&report), 1, "{:?}", report.results());
    assert_eq!(activations.names(), ["weather"]);
    let next = toolbox
        .request(&policy)
        .expect("weather is a runtime tool")
        .activated(&activations);
    assert_eq!(
        next.offered(),
        [
            "read_note",
            "write_note",
            "book_taxi",
            "wire_money",
            "tool_search",
            "weather"
        ]
    );
    let plan = next
        .gate([call("1", "weather", r#"{"city":"Oslo"}"#)])
        .expect("activated: permitted");
    assert_eq!(plan.approved().count(), 1);
}

#[tokio::test]
async fn a_runtime_tool_declared_deferred_is_offered_as_a_policy_deferred_one_is() {
    // The same tool, deferred by its declaration (as `#[tool(deferred)]`) or by the policy.
    let declared = DeskTools::toolbox()
        .with_all([
            DynamicTool::new("weather", Tier::ReadOnly, "Today's weather for a city.")
                .input_schema(city_schema())
                .deferred()
                .handler(weather),
        ])
        .expect("a valid tool");
    let by_policy = DeskTools::toolbox()
        .with_all([
            DynamicTool::new("weather", Tier::ReadOnly, "Today's weather for a city.")
                .input_schema(city_schema())
                .handler(weather),
        ])
        .expect("a valid tool");
    let plain = DeskTools::policy(Autonomy::ReadOnly);
    let deferring = DeskTools::policy(Autonomy::ReadOnly).defer("weather");
    let first = declared.request(&plain).expect("no names");
    let second = by_policy
        .request(&deferring)
        .expect("weather is a runtime tool");
    assert_eq!(first.offered(), second.offered());
    assert!(
        !first.offered().contains(&"weather"),
        "{:?}",
        first.offered()
    );
    assert!(first.offered().contains(&"tool_search"));
    for format in [
        Format::OpenAiChat,
        Format::Anthropic,
        Format::OpenAiResponses,
    ] {
        let listed = |toolbox: &Toolbox<DeskTools>, policy| {
            toolbox
                .request(policy)
                .expect("valid names")
                .format(format)
                .tool_list()
        };
        assert_eq!(
            listed(&declared, &plain),
            listed(&by_policy, &deferring),
            "{format:?}"
        );
    }
    let refused = first
        .gate([call("1", "weather", r#"{"city":"Oslo"}"#)])
        .expect_err("not found yet");
    assert_eq!(refused.problems()[0].kind, ProblemKind::UnknownTool);
    // Found by the search, then offered and permitted.
    let plan = first
        .gate([call("s", "tool_search", r#"{"query":"weather city"}"#)])
        .expect("a search");
    let report = DeskTools::apply(&mut Desk::default(), &ToolContext::default(), plan).await;
    let mut activations = toolset::request::Activations::new();
    assert_eq!(activations.record(&report), 1, "{:?}", report.results());
    let next = declared
        .request(&plain)
        .expect("no names")
        .activated(&activations);
    assert!(next.offered().contains(&"weather"), "{:?}", next.offered());
    assert!(
        next.gate([call("1", "weather", r#"{"city":"Oslo"}"#)])
            .is_ok()
    );
}

#[test]
fn a_policy_naming_a_runtime_tool_the_toolbox_lacks_is_an_error_when_the_request_is_composed() {
    let toolbox = toolbox_with_weather();
    let typo = DeskTools::policy(Autonomy::ReadOnly).deny("wether");
    let error = toolbox
        .request(&typo)
        .expect_err("no tool is called wether");
    assert_eq!(error.unknown(), ["wether"]);
    let said = error.to_string();
    assert!(
        said.contains("`wether` (did you mean `weather`?)") && said.contains("weather"),
        "{said}"
    );
    assert!(
        toolset::request::Request::new(&typo)
            .toolbox(&toolbox)
            .is_err(),
        "the same check wherever the toolbox joins"
    );
    // A misspelled name of the set's tools is told the set's name it is closest to.
    let misspelled = DeskTools::policy(Autonomy::ReadOnly).hide("red_note");
    let said = toolbox
        .request(&misspelled)
        .expect_err("no tool is called red_note")
        .to_string();
    assert!(
        said.contains("`red_note` (did you mean `read_note`?)") && said.contains("DeskTools"),
        "{said}"
    );
}

#[test]
fn a_name_of_the_sets_tool_names_that_tool_as_its_typed_name_does() {
    let toolbox = toolbox_with_weather();
    let by_name = DeskTools::policy(Autonomy::ReadOnly).hide("read_note");
    let typed = DeskTools::policy(Autonomy::ReadOnly).hide(DeskToolsName::ReadNote);
    let by_name = toolbox.request(&by_name).expect("read_note is the set's");
    let typed = toolbox.request(&typed).expect("typed");
    assert_eq!(by_name.offered(), typed.offered());
    assert!(!by_name.offered().contains(&"read_note"), "hidden");
    assert!(by_name.offered().contains(&"weather"));
}

/// The first message of a ui-test's `.stderr`: what the compiler says of that `#[tool]`.
fn compiler_says(case: &str) -> String {
    let path = format!(
        "{}/../ui-tests/fail/{case}.stderr",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    text.lines()
        .next()
        .and_then(|line| line.strip_prefix("error: "))
        .unwrap_or_else(|| panic!("{path} starts with no error"))
        .to_owned()
}

#[test]
fn registration_refuses_a_broken_declaration_in_the_compilers_words() {
    // Each runtime tool breaks one rule as a ui-test's `#[tool]` does (`ui-tests/fail/`):
    // one checker (`toolset_rules::declaration`) refuses both, so the words are the same.
    let cases = [
        (
            "bad_name",
            DynamicTool::new("inbox.search", Tier::ReadOnly, "Searches.").handler(weather),
        ),
        (
            "reserved_search_name",
            DynamicTool::new("tool_search", Tier::ReadOnly, "Searches.").handler(weather),
        ),
        (
            "empty_description",
            DynamicTool::new("search", Tier::ReadOnly, "  ").handler(weather),
        ),
        (
            "propose_only_auto_runnable_tier",
            DynamicTool::new("suggest", Tier::Reversible, "Suggests.").propose_only(),
        ),
        (
            "timeout_zero",
            DynamicTool::new("search", Tier::ReadOnly, "Searches.")
                .timeout_ms(0)
                .handler(weather),
        ),
        (
            "example_not_an_object",
            DynamicTool::new("search", Tier::ReadOnly, "Searches.")
                .example(json!(["invoices"]))
                .handler(weather),
        ),
        (
            "mut_state_on_read_only",
            DynamicTool::new("search", Tier::ReadOnly, "Searches.")
                .input_schema(key_schema())
                .writes_state(stamp_note),
        ),
    ];
    for (case, tool) in cases {
        let error = toolbox().with(tool).expect_err(case);
        let [problem] = error.problems() else {
            panic!("{case}: one problem expected: {error}");
        };
        // The ui-test's state is `Inbox`; this toolbox's is the desk.
        let said = problem.message.replace("toolbox::Desk", "Inbox");
        assert_eq!(said, compiler_says(case), "{case}");
    }
}
