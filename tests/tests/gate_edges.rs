//! The gate's guarantees at the edges (issue 9): what the schema says, the gate enforces;
//! what a model sends is judged by its meaning, not its spelling; `apply` answers every
//! call whatever a handler does. One test per guarantee, named for it.

use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toolset::consumer::{Format, Order, tool_list};
use toolset::context::CancellationToken;
use toolset::prelude::ToolSet;
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::{Autonomy, ToolCall, ToolContext, tool, toolset};

/// The state of the edge tools: none is needed.
pub struct Repo;

/// Open a pull request. The arguments are declared out of alphabetical order on purpose.
#[tool(tier = "external_reversible")]
pub async fn open_pull_request(
    /// The title.
    title: String,
    /// The branch with the changes.
    head: String,
    /// The branch to merge into.
    base: String,
    /// Open it as a draft.
    draft: bool,
    /// Who reviews it.
    reviewer: Review,
) {
    let _ = (title, head, base, draft, reviewer);
}

/// A nested argument, also out of alphabetical order.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Review {
    /// The reviewer's login.
    pub who: String,
    /// Whether their approval is required.
    pub required: bool,
    /// A note for them.
    pub note: String,
}

toolset! { pub RepoTools<Repo> = [open_pull_request]; }

/// The arguments schema inside one rendered tool object of `format`.
fn rendered_schema(format: Format) -> Value {
    let list: Value = serde_json::from_str(tool_list::<RepoTools>(format, Order::Declared))
        .expect("a JSON format renders JSON");
    let tool = &list[0];
    let schema = match format {
        Format::OpenAiChat => &tool["function"]["parameters"],
        Format::OpenAiResponses | Format::Gemini => &tool["parameters"],
        Format::Anthropic => &tool["input_schema"],
        Format::Mcp => &tool["inputSchema"],
        other => unreachable!("{other} is not a JSON format with a schema"),
    };
    schema.clone()
}

fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .map(|members| members.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn strings(array: &Value) -> Vec<&str> {
    array
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The nested `Review` schema of a rendered schema: inlined or under `$defs`/`definitions`.
fn review_schema(schema: &Value) -> &Value {
    let inline = &schema["properties"]["reviewer"];
    if inline.get("properties").is_some() {
        return inline;
    }
    for defs in ["$defs", "definitions"] {
        if let Some(review) = schema[defs].get("Review") {
            return review;
        }
    }
    inline
}

#[test]
fn arguments_are_listed_in_declared_order_in_every_format() {
    let declared = ["title", "head", "base", "draft", "reviewer"];
    let nested = ["who", "required", "note"];
    let canonical = RepoTools::specs()[0].input_schema();
    assert_eq!(keys(&canonical["properties"]), declared, "{canonical:#}");
    assert_eq!(strings(&canonical["required"]), declared);
    for format in Format::ALL.into_iter().filter(|format| format.is_json()) {
        let schema = rendered_schema(format);
        assert_eq!(
            keys(&schema["properties"]),
            declared,
            "{format}: {schema:#}"
        );
        assert_eq!(
            strings(&schema["required"]),
            declared,
            "{format}: {schema:#}"
        );
        let review = review_schema(&schema);
        assert_eq!(keys(&review["properties"]), nested, "{format}: {schema:#}");
        assert_eq!(strings(&review["required"]), nested, "{format}: {schema:#}");
    }
    let prompt = tool_list::<RepoTools>(Format::Prompt, Order::Declared);
    let positions: Vec<usize> = declared
        .iter()
        .map(|name| prompt.find(&format!("- {name} (")).unwrap_or(usize::MAX))
        .collect();
    assert!(
        positions.is_sorted() && !positions.contains(&usize::MAX),
        "{prompt}"
    );
    assert!(
        prompt.contains("{who: string, required: boolean, note: string}"),
        "{prompt}"
    );
}

#[test]
fn one_action_spelled_differently_has_one_action_key() {
    let key = |arguments: &str| ToolCall::new("c", "set_limit", arguments).action_key();
    assert_eq!(key(r#"{"limit":100}"#), key(r#"{"limit":100.0}"#));
    assert_eq!(key(r#"{"limit":100}"#), key(r#"{"limit":1e2}"#));
    assert_eq!(key(r#"{"offset":0}"#), key(r#"{"offset":-0}"#));
    assert_eq!(key(""), key("{}"));
    assert_eq!(key("  "), key(r#"{ }"#));
    assert_eq!(
        key(r#"{"b":1,"a":{"y":[1,2],"x":"é"}}"#),
        key(r#"{ "a": {"x": "\u00e9", "y": [1.0, 2e0]}, "b": 1 }"#)
    );
    assert_ne!(key(r#"{"limit":100}"#), key(r#"{"limit":101}"#));
}

/// List tags. The `\Z` is not ECMA-262: the validator cannot compile this pattern.
#[tool(tier = "read_only")]
pub async fn list_tags(
    #[schemars(regex(pattern = r"^[a-z0-9_]+\Z"))] prefix: String,
    #[schemars(range(max = 100))] limit: u32,
) -> String {
    format!("{prefix} {limit}")
}

/// List labels: the same constraints, declared right.
#[tool(tier = "read_only")]
pub async fn list_labels(
    #[schemars(regex(pattern = r"^[a-z0-9_]+$"))] prefix: String,
    #[schemars(range(max = 100))] limit: u32,
) -> String {
    format!("{prefix} {limit}")
}

toolset! { pub TagTools<Repo> = [list_tags, list_labels]; }

#[test]
fn a_constraint_the_validator_cannot_compile_refuses_every_call_of_its_tool() {
    // The set's first use panics in a debug build, naming the problem for its author
    // (`misdeclared_set.rs`); once: from then on the gate answers the model.
    let first = std::panic::catch_unwind(|| TagTools::gate([], Autonomy::ReadOnly));
    assert_eq!(first.is_err(), cfg!(debug_assertions));
    // The call that used to run: every constraint switched off, `limit` far past 100.
    let past_the_range = ToolCall::new("1", "list_tags", r#"{"prefix":"a","limit":4000000000}"#);
    // Even arguments that would fit are refused: nothing can tell that they do.
    let fitting = ToolCall::new("2", "list_tags", r#"{"prefix":"a","limit":5}"#);
    for call in [past_the_range, fitting] {
        let rejected = TagTools::gate([call], Autonomy::ReadOnly).expect_err("refused");
        let problem = &rejected.problems()[0];
        assert_eq!(problem.kind, ProblemKind::Misdeclared);
        assert!(
            problem.message.contains("no fault of your call")
                && problem.message.contains("Do without it"),
            "{}",
            problem.message
        );
    }
    // The well-declared twin is checked as declared.
    let over = ToolCall::new("3", "list_labels", r#"{"prefix":"a","limit":101}"#);
    let rejected = TagTools::gate([over], Autonomy::ReadOnly).expect_err("over the range");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::InvalidArguments);
    let fine = ToolCall::new("4", "list_labels", r#"{"prefix":"a","limit":100}"#);
    assert!(TagTools::gate([fine], Autonomy::ReadOnly).is_ok());
}

#[test]
fn a_set_check_names_every_tool_whose_constraints_cannot_be_checked() {
    let problems = TagTools::check_declarations().expect_err("list_tags is misdeclared");
    let tools: Vec<&str> = problems
        .iter()
        .map(|problem| problem.tool.as_str())
        .collect();
    assert_eq!(tools, ["list_tags"]);
    let text = problems[0].to_string();
    assert!(
        text.starts_with("the tool `list_tags` is misdeclared"),
        "{text}"
    );
    assert!(text.contains("pattern"), "{text}");
    assert_eq!(toolset::check_declarations::<RepoTools>(), Ok(()));
}

/// Resize a volume.
#[tool(tier = "reversible")]
pub async fn resize(
    /// Bytes.
    size: u64,
    /// Blocks.
    blocks: u32,
    /// Scale factor.
    scale: f32,
    /// Offset.
    offset: i64,
) {
    let _ = (size, blocks, scale, offset);
}

toolset! { pub VolumeTools<Repo> = [resize]; }

fn resize_call(size: &str, blocks: &str, scale: &str, offset: &str) -> ToolCall {
    ToolCall::new(
        "1",
        "resize",
        format!(r#"{{"size":{size},"blocks":{blocks},"scale":{scale},"offset":{offset}}}"#),
    )
}

#[test]
fn a_schema_states_each_number_type_exactly_and_refuses_what_the_gate_refuses_past_it() {
    let schema = VolumeTools::specs()[0].input_schema();
    let range = |name: &str| {
        let field = &schema["properties"][name];
        (field["minimum"].to_string(), field["maximum"].to_string())
    };
    // Every integer type up to 64 bits exactly, as JSON integers (issue 26, item 6).
    assert_eq!(range("blocks"), ("0".into(), u32::MAX.to_string()));
    assert_eq!(range("size"), ("0".into(), u64::MAX.to_string()));
    assert_eq!(
        range("offset"),
        (i64::MIN.to_string(), i64::MAX.to_string())
    );
    let (scale_min, scale_max) = range("scale");
    // Every bound the schema states is a value the gate accepts.
    let at_the_top = resize_call(
        &range("size").1,
        &range("blocks").1,
        &scale_max,
        &range("offset").1,
    );
    assert!(VolumeTools::gate([at_the_top], Autonomy::Reversible).is_ok());
    let at_the_bottom = resize_call("0", "0", &scale_min, &range("offset").0);
    assert!(VolumeTools::gate([at_the_bottom], Autonomy::Reversible).is_ok());
    // Whatever the gate refuses past a bound, the schema refuses too, for every value the
    // validator's reader holds as sent. serde_json holds -9223372036854775809 as the
    // double -2^63, which is i64::MIN: that reader cannot see it is past the bound (a
    // reader's rounding, not the schema's), so only the gate refuses it.
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    for (past, held_as_sent) in [
        (resize_call("18446744073709551616", "1", "1", "1"), true),
        (resize_call("1", "4294967296", "1", "1"), true),
        (resize_call("1", "1", "1", "-9223372036854775809"), false),
        (resize_call("1", "1", "1", "9223372036854775808"), true),
        (resize_call("-1", "1", "1", "1"), true),
        (resize_call("1", "1", "1e39", "1"), true),
        (resize_call("1", "1", "-1e39", "1"), true),
    ] {
        assert!(
            VolumeTools::gate([past.clone()], Autonomy::Reversible).is_err(),
            "{}",
            past.arguments
        );
        let arguments: Value = serde_json::from_str(&past.arguments.text()).expect("valid JSON");
        assert_eq!(
            validator.is_valid(&arguments),
            !held_as_sent,
            "{}",
            past.arguments
        );
    }
}

// ---------------------------------------------------------------------------------------
// Point 10: `apply` never panics, whatever a handler does when it is stopped.
// ---------------------------------------------------------------------------------------

/// A local whose `Drop` panics unless disarmed: what a handler stopped mid-way leaves.
struct PanicsWhenDropped;

impl Drop for PanicsWhenDropped {
    fn drop(&mut self) {
        panic!("cleanup exploded");
    }
}

/// Hang past the time limit, holding a guard whose cleanup panics.
#[tool(tier = "read_only", timeout_ms = 20)]
pub async fn hang_badly() -> String {
    let guard = PanicsWhenDropped;
    tokio::time::sleep(Duration::from_secs(5)).await;
    std::mem::forget(guard);
    "never".into()
}

/// Wait to be cancelled, holding a guard whose cleanup panics.
#[tool(tier = "reversible")]
pub async fn wait_badly() -> String {
    let guard = PanicsWhenDropped;
    tokio::time::sleep(Duration::from_secs(5)).await;
    std::mem::forget(guard);
    "never".into()
}

/// Answer at once.
#[tool(tier = "read_only")]
pub async fn quick() -> String {
    "quick".into()
}

toolset! { pub StopTools<Repo> = [hang_badly, wait_badly, quick]; }

fn kinds(report: &toolset::report::Report) -> Vec<&'static str> {
    report
        .entries()
        .iter()
        .map(|entry| entry.outcome.as_ref().map_or("none", Outcome::kind))
        .collect()
}

#[tokio::test]
async fn a_handler_panicking_in_drop_when_timed_out_gets_one_outcome_and_apply_goes_on() {
    let program = [
        ToolCall::new("1", "hang_badly", "{}"),
        ToolCall::new("2", "quick", "{}"),
        ToolCall::new("3", "hang_badly", "{}"),
    ];
    let plan = StopTools::gate(program, Autonomy::ReadOnly).expect("a valid program");
    let report = StopTools::apply(&mut Repo, &ToolContext::default(), plan).await;
    assert_eq!(kinds(&report), ["panicked", "done", "panicked"]);
    let Some(Outcome::Panicked { message }) = &report.entries()[0].outcome else {
        unreachable!("checked above");
    };
    assert!(
        message.contains("while being stopped after it ran past its 20 ms limit")
            && message.contains("cleanup exploded"),
        "{message}"
    );
    assert_eq!(report.results().len(), 3);
}

#[tokio::test]
async fn a_handler_panicking_in_drop_when_cancelled_gets_one_outcome_and_apply_goes_on() {
    let token = CancellationToken::new();
    let ctx = ToolContext::default().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    });
    let program = [
        ToolCall::new("1", "quick", "{}"),
        ToolCall::new("2", "wait_badly", "{}"),
        ToolCall::new("3", "quick", "{}"),
    ];
    let plan = StopTools::gate(program, Autonomy::Reversible).expect("a valid program");
    let report = StopTools::apply(&mut Repo, &ctx, plan).await;
    canceller.await.expect("the canceller ran");
    assert_eq!(kinds(&report), ["done", "panicked", "cancelled"]);
    let Some(Outcome::Panicked { message }) = &report.entries()[1].outcome else {
        unreachable!("checked above");
    };
    assert!(message.contains("after the run was cancelled"), "{message}");
}

// ---------------------------------------------------------------------------------------
// Point 11: what `timeout_ms` promises for handlers that block.
// ---------------------------------------------------------------------------------------

/// Block for 400 ms, through `toolset::blocking`, under a 50 ms limit.
#[tool(tier = "read_only", timeout_ms = 50)]
pub async fn slow_disk() -> String {
    toolset::blocking(|| {
        std::thread::sleep(Duration::from_millis(400));
        "read".to_owned()
    })
    .await
}

/// Block for 150 ms on the blocking pool, then say whether `tick` ran meanwhile.
#[tool(tier = "read_only")]
pub async fn slow_read(ticks: &Ticks) -> String {
    let ticked = ticks.0.clone();
    toolset::blocking(move || {
        std::thread::sleep(Duration::from_millis(150));
        format!("tick ran meanwhile: {}", ticked.load(Ordering::SeqCst))
    })
    .await
}

/// Note that this read ran.
#[tool(tier = "read_only")]
pub async fn tick(ticks: &Ticks) -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    ticks.0.store(true, Ordering::SeqCst);
    "ticked".to_owned()
}

/// Block the thread itself for 100 ms (no `toolset::blocking`) under a 20 ms limit.
#[tool(tier = "reversible", timeout_ms = 20)]
pub async fn blocks_its_thread(ticks: &mut Ticks) -> String {
    std::thread::sleep(Duration::from_millis(100));
    ticks.0.store(true, Ordering::SeqCst);
    "finished late".to_owned()
}

/// Panic on the blocking pool.
#[tool(tier = "read_only")]
pub async fn blocking_panic() -> String {
    toolset::blocking(|| -> String { panic!("the disk caught fire") }).await
}

/// State of the blocking tools: whether `tick` ran.
#[derive(Default)]
pub struct Ticks(Arc<AtomicBool>);

toolset! { pub BlockingTools<Ticks> = [slow_disk, slow_read, tick, blocks_its_thread, blocking_panic]; }

#[tokio::test]
async fn a_time_limit_stops_blocking_work_run_through_toolset_blocking_on_time() {
    let program = [ToolCall::new("1", "slow_disk", "{}")];
    let plan = BlockingTools::gate(program, Autonomy::ReadOnly).expect("a valid program");
    let started = Instant::now();
    let report = BlockingTools::apply(&mut Ticks::default(), &ToolContext::default(), plan).await;
    let took = started.elapsed();
    assert!(
        matches!(report.entries()[0].outcome, Some(Outcome::TimedOut { after }) if after == Duration::from_millis(50))
    );
    assert!(
        took < Duration::from_millis(300),
        "stopped after {took:?}, not at 50 ms"
    );
}

#[tokio::test]
async fn blocking_work_run_through_toolset_blocking_does_not_stall_its_batch() {
    let program = [
        ToolCall::new("1", "slow_read", "{}"),
        ToolCall::new("2", "tick", "{}"),
    ];
    let plan = BlockingTools::gate(program, Autonomy::ReadOnly).expect("a valid program");
    let report = BlockingTools::apply(&mut Ticks::default(), &ToolContext::default(), plan).await;
    let texts: Vec<String> = report
        .results()
        .iter()
        .map(|result| format!("{:?}", result.output))
        .collect();
    assert!(texts[0].contains("tick ran meanwhile: true"), "{texts:?}");
}

#[tokio::test]
async fn a_panic_in_blocking_work_is_recorded_as_the_call_panicking() {
    let program = [ToolCall::new("1", "blocking_panic", "{}")];
    let plan = BlockingTools::gate(program, Autonomy::ReadOnly).expect("a valid program");
    let report = BlockingTools::apply(&mut Ticks::default(), &ToolContext::default(), plan).await;
    assert!(
        matches!(&report.entries()[0].outcome, Some(Outcome::Panicked { message }) if message == "the disk caught fire"),
        "{:?}",
        report.entries()[0].outcome
    );
}

/// The documented limit, pinned: a limit cannot interrupt a thread, so a handler that
/// blocks its own thread finishes, and is reported as it ended.
#[tokio::test]
async fn a_handler_blocking_its_own_thread_runs_to_its_end_and_is_reported_as_it_ended() {
    let program = [ToolCall::new("1", "blocks_its_thread", "{}")];
    let plan = BlockingTools::gate(program, Autonomy::Reversible).expect("a valid program");
    let mut ticks = Ticks::default();
    let report = BlockingTools::apply(&mut ticks, &ToolContext::default(), plan).await;
    assert_eq!(kinds(&report), ["done"]);
    assert!(ticks.0.load(Ordering::SeqCst), "its effect happened");
}

// ---------------------------------------------------------------------------------------
// Points 1, 2, 5, 6: what the schema says about the arguments, the gate enforces, and
// says so in JSON terms.
// ---------------------------------------------------------------------------------------

/// The arguments of `purge`, a user's struct: no `deny_unknown_fields`, as users write it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PurgeArgs {
    /// What to purge.
    pub q: String,
    /// Only say what would go.
    #[serde(default)]
    pub dry_run: bool,
    /// Paging, nested.
    pub page: Option<Page>,
    /// Extra filters.
    #[serde(default)]
    pub filters: Vec<Filter>,
}

/// Paging of a result.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Page {
    /// Items per page.
    pub per_page: u8,
    /// Which page.
    pub number: u32,
}

/// One filter (an externally tagged enum of structs, none denying unknown fields).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// By age.
    Age {
        /// At least this many days old.
        days: u32,
    },
    /// By owner.
    Owner {
        /// The owner's login.
        login: String,
    },
}

/// Purge what matches, for good.
#[tool(tier = "irreversible")]
pub async fn purge(#[args] args: PurgeArgs) -> String {
    format!("{args:?}")
}

/// Measure something (the number types whose data errors serde calls syntax errors).
#[tool(tier = "read_only")]
pub async fn measure(
    /// A ratio.
    ratio: f32,
    /// A huge count.
    count: u128,
    /// A point.
    point: (i32, i32),
    /// How to sort.
    order: SortOrder,
) -> String {
    format!("{ratio} {count} {point:?} {order:?}")
}

/// A sort order (an externally tagged enum).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// Oldest first.
    Oldest,
    /// By a field.
    ByField(String),
}

/// Read a note by key.
#[tool(tier = "read_only")]
pub async fn read_key(key: String) -> String {
    key
}

/// Write a note by key.
#[tool(tier = "reversible")]
pub async fn write_key(key: String) -> String {
    key
}

toolset! { pub EdgeTools<Repo> = [purge, measure, read_key, write_key]; }

/// The one problem message of a single-call program the gate must refuse.
fn refusal(name: &str, arguments: &str) -> (ProblemKind, String) {
    let rejected = EdgeTools::gate(
        [ToolCall::new("1", name, arguments)],
        Autonomy::ExternalReversible,
    )
    .expect_err("the gate refuses it");
    let problem = &rejected.problems()[0];
    (problem.kind, problem.message.clone())
}

#[test]
fn an_args_struct_rejects_an_unknown_key_at_any_depth() {
    // The purge that used to run with dry_run = false.
    let (kind, message) = refusal("purge", r#"{"q":"x","dryrun":true}"#);
    assert_eq!(kind, ProblemKind::InvalidArguments);
    assert!(
        message.contains(r#"/dryrun: unknown key. Did you mean "dry_run"?"#),
        "{message}"
    );
    // In a nested struct, behind an Option.
    let (_, message) = refusal(
        "purge",
        r#"{"q":"x","page":{"per_page":5,"number":1,"sise":3}}"#,
    );
    assert!(message.contains("/page/sise: unknown key"), "{message}");
    // In an enum variant inside an array.
    let (_, message) = refusal(
        "purge",
        r#"{"q":"x","filters":[{"age":{"days":3}},{"owner":{"login":"a","logn":"b"}}]}"#,
    );
    assert!(
        message.contains(r#"/filters/1/owner/logn: unknown key. Did you mean "login"?"#),
        "{message}"
    );
    // Every unknown key at once.
    let (_, message) = refusal(
        "purge",
        r#"{"q":"x","dryrun":true,"page":{"per_page":5,"number":1,"x":0}}"#,
    );
    assert!(
        message.contains("/dryrun") && message.contains("/page/x"),
        "{message}"
    );
    // The well-formed call passes.
    assert!(
        EdgeTools::gate(
            [ToolCall::new(
                "1",
                "purge",
                r#"{"q":"x","dry_run":true,"page":{"per_page":5,"number":1}}"#
            )],
            Autonomy::Off
        )
        .is_ok()
    );
}

#[test]
fn a_json_array_is_refused_as_the_arguments_whatever_the_tier() {
    for tool in ["read_key", "write_key", "purge"] {
        let (kind, message) = refusal(tool, r#"["k"]"#);
        assert_eq!(kind, ProblemKind::InvalidArguments, "{tool}");
        assert!(
            message.contains("/: expected an object of named arguments, got an array of 1 items"),
            "{message}"
        );
    }
    // Other JSON that is not an object, too; and text that is not JSON is malformed.
    for (arguments, got) in [("\"k\"", "got \"k\""), ("7", "got 7"), ("null", "got null")] {
        let (kind, message) = refusal("read_key", arguments);
        assert_eq!(kind, ProblemKind::InvalidArguments);
        assert!(message.contains(got), "{message}");
    }
    assert_eq!(refusal("read_key", "[k").0, ProblemKind::MalformedJson);
    // So the object form's action key is the only one a call that runs can have.
    let plan = EdgeTools::gate(
        [ToolCall::new("1", "write_key", r#"{"key":"k"}"#)],
        Autonomy::Reversible,
    )
    .expect("the object form passes");
    assert_eq!(
        plan.calls()[0].action_key(),
        b"write_key\0{\"key\":\"k\"}".to_vec()
    );
}

#[test]
fn a_number_out_of_range_or_a_wrong_shape_is_invalid_arguments_naming_the_field() {
    // `measure`'s arguments, fine but for `field`, whose JSON text is `raw`.
    let measure = |field: &str, raw: &str| {
        let fields = [
            ("ratio", "0.5"),
            ("count", "1"),
            ("point", "[1,2]"),
            ("order", r#""oldest""#),
        ];
        let fields = fields
            .map(|(key, fine)| format!(r#""{key}":{}"#, if key == field { raw } else { fine }));
        format!("{{{}}}", fields.join(","))
    };
    let fine = measure("", "");
    assert!(EdgeTools::gate([ToolCall::new("1", "measure", fine)], Autonomy::ReadOnly).is_ok());
    for (field, raw, path) in [
        ("ratio", "1e39", "/ratio"),
        ("count", "340282366920938463463374607431768211456", "/count"),
        ("count", "1.5", "/count"),
        ("point", "[1,2,3]", "/point"),
        ("point", "[1]", "/point"),
        ("order", r#"{"oldest":1}"#, "/order"),
        ("order", r#""newest""#, "/order"),
        ("order", r#"{"by_field":7}"#, "/order/by_field"),
    ] {
        let arguments = &measure(field, raw);
        let (kind, message) = refusal("measure", arguments);
        assert_eq!(
            kind,
            ProblemKind::InvalidArguments,
            "{arguments}: {message}"
        );
        assert!(
            message.contains(&format!("{path}: expected ")),
            "{arguments}: {message}"
        );
    }
}

#[test]
fn every_problem_of_a_call_is_reported_at_once_with_its_json_path_and_the_json_expected() {
    let (kind, message) = refusal(
        "purge",
        r#"{"q":7,"page":{"per_page":300,"number":"1"},"filters":[{"size":{}}]}"#,
    );
    assert_eq!(kind, ProblemKind::InvalidArguments);
    for expected in [
        "/q: expected a string, got 7",
        "/page/per_page: expected an integer from 0 to 255, got 300",
        r#"/page/number: expected an integer from 0 to 4294967295, got "1""#,
        "/filters/0: expected ",
    ] {
        assert!(message.contains(expected), "{expected} in {message}");
    }
    // No Rust type names: the model knows JSON, not `u32`.
    for rust in ["u8", "u32", "String", "struct", "variant"] {
        assert!(!message.contains(rust), "{rust} in {message}");
    }
    let (_, message) = refusal("purge", r#"{"page":{"per_page":1}}"#);
    assert!(
        message.contains("/q: missing required key (expected a string)"),
        "{message}"
    );
    assert!(
        message.contains("/page/number: missing required key"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------
// Points 4 and 8: the program's ids, and names of any size.
// ---------------------------------------------------------------------------------------

#[test]
fn duplicate_and_empty_call_ids_reject_the_program_with_a_problem_for_each() {
    let program = [
        ToolCall::new("a", "read_key", r#"{"key":"1"}"#),
        ToolCall::new("b", "read_key", r#"{"key":"2"}"#),
        ToolCall::new("a", "read_key", r#"{"key":"3"}"#),
        ToolCall::new("", "read_key", r#"{"key":"4"}"#),
    ];
    let rejected = EdgeTools::gate(program, Autonomy::ReadOnly).expect_err("ids must be unique");
    let problems: Vec<(&str, ProblemKind)> = rejected
        .problems()
        .iter()
        .map(|problem| (problem.call_id.as_str(), problem.kind))
        .collect();
    assert_eq!(
        problems,
        [
            ("a", ProblemKind::InvalidCallId),
            ("a", ProblemKind::InvalidCallId),
            ("", ProblemKind::InvalidCallId)
        ]
    );
    assert!(
        rejected.problems()[0]
            .message
            .contains(r#"The call id "a" is used by 2 calls of this batch (calls 1, 3)"#),
        "{}",
        rejected.problems()[0].message
    );
    // One result per id, as providers require; the unique one says it was not run.
    let results = rejected.results();
    let ids: Vec<&str> = results
        .iter()
        .map(|result| result.call_id.as_str())
        .collect();
    assert_eq!(ids, ["a", "b", ""]);
    assert!(
        results[1]
            .output
            .text_content()
            .starts_with("Not run: 3 other call(s)")
    );
}

#[test]
fn a_call_with_a_bad_id_and_bad_arguments_gets_both_problems() {
    let program = [
        ToolCall::new("", "read_key", r#"{"key":1}"#),
        ToolCall::new("b", "read_key", r#"{"key":"2"}"#),
    ];
    let rejected = EdgeTools::gate(program, Autonomy::ReadOnly).expect_err("refused");
    let kinds: Vec<ProblemKind> = rejected
        .problems()
        .iter()
        .map(|problem| problem.kind)
        .collect();
    assert_eq!(
        kinds,
        [ProblemKind::InvalidCallId, ProblemKind::InvalidArguments]
    );
    let first = rejected.results()[0].output.text_content();
    assert!(
        first.contains("no id") && first.contains("/key: expected a string, got 1"),
        "{first}"
    );
}

#[test]
fn rejected_results_take_linear_time_in_the_number_of_calls() {
    // 60 000 invalid calls took 8.7 s with a lookup per call (quadratic). Compared by
    // scaling rather than a clock bound, so a loaded machine does not decide: four times
    // the calls cost about four times as much, not sixteen.
    let time_results = |calls: usize| {
        let program: Vec<ToolCall> = (0..calls)
            .map(|i| ToolCall::new(format!("call_{i}"), "no_such_tool", "{}"))
            .collect();
        let rejected =
            EdgeTools::gate(program, Autonomy::ReadOnly).expect_err("every call is invalid");
        let started = Instant::now();
        let results = rejected.results();
        assert_eq!(results.len(), calls);
        started.elapsed()
    };
    // The fastest of five runs of each: a run slowed by other work on the machine says
    // nothing about the algorithm.
    let fastest = |calls: usize| {
        (0..5)
            .map(|_| time_results(calls))
            .min()
            .unwrap_or_default()
    };
    let small = fastest(15_000);
    let large = fastest(60_000);
    assert!(
        large < small * 9,
        "15k calls: {small:?}, 60k calls: {large:?} (quadratic would be 16x)"
    );
}

#[test]
fn a_tool_name_longer_than_the_grammar_is_refused_before_any_distance_is_computed() {
    let huge = "read_key".repeat(500_000); // 4 MB
    let started = Instant::now();
    let rejected = EdgeTools::gate(
        [ToolCall::new("1", huge.as_str(), "{}")],
        Autonomy::ReadOnly,
    )
    .expect_err("no such tool");
    let took = started.elapsed();
    let problem = &rejected.problems()[0];
    assert_eq!(problem.kind, ProblemKind::UnknownTool);
    // No suggestion, no megabytes echoed back, and no seconds spent.
    assert!(
        !problem.message.contains("Did you mean"),
        "{}",
        problem.message
    );
    assert!(
        problem.message.len() < 500,
        "{} bytes",
        problem.message.len()
    );
    assert!(took < Duration::from_millis(500), "took {took:?}");
    // A typo of normal length still gets its suggestion.
    let rejected = EdgeTools::gate([ToolCall::new("1", "read_kye", "{}")], Autonomy::ReadOnly)
        .expect_err("no such tool");
    assert!(
        rejected.problems()[0]
            .message
            .contains(r#"Did you mean "read_key"?"#)
    );
}

#[test]
fn an_unknown_key_of_megabytes_costs_no_search_and_is_not_echoed() {
    let huge = "k".repeat(4_000_000);
    let arguments = format!(r#"{{"q":"x","{huge}":1}}"#);
    let started = Instant::now();
    let (kind, message) = refusal("purge", &arguments);
    assert_eq!(kind, ProblemKind::InvalidArguments);
    assert!(message.len() < 500, "{} bytes", message.len());
    // A few passes over the text, not a search over it (a distance to a 4 MB key would
    // take hours); the bound leaves room for a debug build on a busy machine.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------
// The property: the gate accepts exactly what the published schema accepts.
// ---------------------------------------------------------------------------------------
//
// For the tools above (nested structs, optional fields, externally tagged enums, tuples,
// every number type, declared constraints), values built from each tool's schema, then
// mutated at a random spot, and random JSON over the schema's own keys: the gate's
// verdict equals the `jsonschema` validator's on the canonical schema, and every refusal
// names a JSON path. The documented exclusions, each re-checked to be the whole story:
//
// - **E1, integral floats.** JSON Schema counts `1.0` as an integer; serde reads a Rust
//   integer only from an integer literal. Excluded when writing the integral floats as
//   integers makes the gate and the schema agree.
// - (E4, the last values of a 64-bit range, is gone: the schema states every integer
//   type's range exactly since issue 26.)
// - **E6, the double past a 128-bit end.** A 128-bit range is stated with doubles rounded
//   outward (2^128 for `u128`, 2^127 for `i128`: `toolset::schema::TypeRange`), so that
//   `u128::MAX` and `i128::MAX` pass every validator; the schema admits that bound itself,
//   which serde refuses. Excluded when the value holds such a bound and, with each one
//   written as the double just below it, the gate and the schema agree.
// - **E5, undeclared keys of a struct that does not deny them.** The gate refuses them
//   (serde would silently ignore them); the schema schemars writes for such a struct
//   does not say `additionalProperties: false`. Excluded when every problem of the
//   refusal is an unknown key.
// - Not exercised here, because the gate cannot see them: keys inside an internally
//   tagged or untagged enum, or a `#[serde(flatten)]` struct, which serde reads through a
//   buffer `serde_ignored` does not reach (schemars' schema allows those keys too, so the
//   two still agree), and, without the `constraints` feature, nested arrays in place of
//   structs (the schema check that refuses them needs the validator).

mod agreement {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use toolset_tests::exclusions::{integral_floats_as_integers, past_128_bit_ends_moved_inside};

    /// A small deterministic generator: the proptest input is its seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    struct Case {
        name: &'static str,
        autonomy: Autonomy,
        gate: fn(ToolCall, Autonomy) -> Result<(), String>,
        schema: Value,
        validator: jsonschema::Validator,
    }

    fn case<T: ToolSet>(name: &'static str, autonomy: Autonomy) -> Case {
        let spec = T::specs()
            .iter()
            .find(|spec| spec.name() == name)
            .expect("a tool of the set");
        let schema = spec.input_schema().clone();
        let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
        Case {
            name,
            autonomy,
            gate: |call, autonomy| {
                // The one-call verification the gate runs on every call of a program.
                let policy = toolset::Policy::<T>::new(autonomy);
                toolset::request::Request::new(&policy)
                    .check(&call)
                    .map_err(|problems| {
                        let problem = &problems[0];
                        format!("{:?}: {}", problem.kind, problem.message)
                    })
            },
            schema,
            validator,
        }
    }

    fn cases() -> &'static [Case] {
        static CASES: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
        CASES.get_or_init(|| {
            vec![
                case::<EdgeTools>("purge", Autonomy::Off),
                case::<EdgeTools>("measure", Autonomy::ReadOnly),
                case::<EdgeTools>("read_key", Autonomy::ReadOnly),
                case::<VolumeTools>("resize", Autonomy::Reversible),
                case::<RepoTools>("open_pull_request", Autonomy::Off),
                case::<TagTools>("list_labels", Autonomy::ReadOnly),
            ]
        })
    }

    fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => resolve(target, root),
            None => schema,
        }
    }

    fn number_in(schema: &Value, rng: &mut Rng, integer: bool) -> Value {
        let min = schema
            .get("minimum")
            .and_then(Value::as_f64)
            .unwrap_or(-1e6);
        let max = schema.get("maximum").and_then(Value::as_f64).unwrap_or(1e6);
        let pick = match rng.below(4) {
            0 => min,
            1 => max,
            _ => min.max(-1000.0) + (rng.next() % 2000) as f64,
        };
        let pick = pick.clamp(min, max);
        if integer {
            match schema.get(if pick == max { "maximum" } else { "minimum" }) {
                Some(bound) if pick == max || pick == min => bound.clone(),
                _ => json!(pick.round() as i64),
            }
        } else {
            json!(pick / 2.0)
        }
    }

    /// A value the schema accepts, mostly.
    fn build(schema: &Value, root: &Value, rng: &mut Rng, depth: usize) -> Value {
        let schema = resolve(schema, root);
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            return options[rng.below(options.len())].clone();
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(keyword).and_then(Value::as_array) {
                return build(&branches[rng.below(branches.len())], root, rng, depth + 1);
            }
        }
        let kinds: Vec<&str> = match schema.get("type") {
            Some(Value::String(kind)) => vec![kind.as_str()],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            _ => vec!["null"],
        };
        match kinds[rng.below(kinds.len())] {
            "object" => {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut object = serde_json::Map::new();
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (key, property) in properties {
                        if required.contains(&key.as_str()) || rng.chance(50) {
                            object.insert(key.clone(), build(property, root, rng, depth + 1));
                        }
                    }
                }
                Value::Object(object)
            }
            "array" => {
                if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
                    return Value::Array(
                        prefix
                            .iter()
                            .map(|item| build(item, root, rng, depth + 1))
                            .collect(),
                    );
                }
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                let count = if depth > 3 { 0 } else { rng.below(3) };
                Value::Array(
                    (0..count)
                        .map(|_| build(&items, root, rng, depth + 1))
                        .collect(),
                )
            }
            "integer" => number_in(schema, rng, true),
            "number" => number_in(schema, rng, false),
            "string" => {
                let letters = "abcxyz_09";
                let length = 1 + rng.below(5);
                Value::String(
                    (0..length)
                        .map(|_| letters.as_bytes()[rng.below(letters.len())] as char)
                        .collect(),
                )
            }
            "boolean" => Value::Bool(rng.chance(50)),
            _ => Value::Null,
        }
    }

    /// Every key the schema names anywhere, for mutations and random objects.
    fn vocabulary(schema: &Value, out: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    out.extend(properties.keys().cloned());
                }
                map.values().for_each(|inner| vocabulary(inner, out));
            }
            Value::Array(items) => items.iter().for_each(|inner| vocabulary(inner, out)),
            _ => {}
        }
    }

    fn leaf(rng: &mut Rng, words: &[String]) -> Value {
        match rng.below(10) {
            0 => Value::Null,
            1 => Value::Bool(rng.chance(50)),
            2 => json!(rng.next() % 1000),
            3 => json!(-((rng.next() % 1000) as i64)),
            4 => json!(1.0),
            5 => json!(300),
            6 => json!(1e39),
            7 => json!(u64::MAX),
            8 => json!(words[rng.below(words.len())]),
            _ => json!([]),
        }
    }

    /// `value` changed at one random spot.
    fn mutate(value: &mut Value, rng: &mut Rng, words: &[String]) {
        match value {
            Value::Object(members) if !members.is_empty() && rng.chance(70) => {
                let keys: Vec<String> = members.keys().cloned().collect();
                let key = &keys[rng.below(keys.len())];
                match rng.below(4) {
                    0 => {
                        members.remove(key);
                    }
                    1 => {
                        members.insert(
                            words[rng.below(words.len())].clone() + "x",
                            leaf(rng, words),
                        );
                    }
                    _ => {
                        if let Some(inner) = members.get_mut(key) {
                            mutate(inner, rng, words);
                        }
                    }
                }
            }
            Value::Array(items) if !items.is_empty() && rng.chance(70) => {
                let index = rng.below(items.len());
                mutate(&mut items[index], rng, words);
            }
            other => {
                *other = match rng.below(3) {
                    0 => Value::Array(vec![other.take()]),
                    1 => Value::Array(match other.take() {
                        Value::Object(members) => members.into_iter().map(|(_, v)| v).collect(),
                        scalar => vec![scalar],
                    }),
                    _ => leaf(rng, words),
                };
            }
        }
    }

    /// `value` as JSON text, with every integral float written in integer digits.
    fn integral_floats_in_digits(value: &Value) -> String {
        match value {
            Value::Number(number) if number.is_f64() => match number.as_f64() {
                Some(float) if float.fract() == 0.0 => format!("{float:.0}"),
                _ => number.to_string(),
            },
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(integral_floats_in_digits).collect();
                format!("[{}]", items.join(","))
            }
            Value::Object(members) => {
                let members: Vec<String> = members
                    .iter()
                    .map(|(key, member)| {
                        format!(
                            "{}:{}",
                            Value::from(key.as_str()),
                            integral_floats_in_digits(member)
                        )
                    })
                    .collect();
                format!("{{{}}}", members.join(","))
            }
            other => other.to_string(),
        }
    }

    fn gate_accepts(case: &Case, value: &Value) -> Result<(), String> {
        (case.gate)(
            ToolCall::new("1", case.name, value.to_string()),
            case.autonomy,
        )
    }

    fn check(case: &Case, value: &Value) -> Result<(), TestCaseError> {
        let gate = gate_accepts(case, value);
        let schema = case.validator.is_valid(value);
        if let Err(refusal) = &gate {
            // Every refusal names a JSON path and is about the arguments.
            prop_assert!(
                refusal.starts_with("InvalidArguments: ") && refusal.contains(": /"),
                "{}: a refusal without a path: {refusal}",
                case.name
            );
        }
        if gate.is_ok() == schema {
            return Ok(());
        }
        // E1: the schema takes `1.0` as an integer, serde does not. With the integral
        // floats written as integers, gate and schema agree, or disagree only as another
        // of these exceptions explains (an unknown key beside the `1.0`, say).
        let integral = integral_floats_as_integers(value);
        if schema && integral != *value && check(case, &integral).is_ok() {
            return Ok(());
        }
        // E1 beyond 64 bits: an integral float too large for a JSON integer of
        // serde_json's, written out in digits.
        if schema {
            let digits = integral_floats_in_digits(value);
            let call = ToolCall::new("1", case.name, digits.clone());
            if serde_json::to_string(value).ok().as_deref() != Some(digits.as_str())
                && (case.gate)(call, case.autonomy).is_ok()
            {
                return Ok(());
            }
        }
        // E6: the double just past a 128-bit end, which the schema states as its bound.
        if schema {
            let inside = past_128_bit_ends_moved_inside(value);
            if inside != *value && check(case, &inside).is_ok() {
                return Ok(());
            }
        }
        // E5: a key the struct does not declare, which the gate refuses (serde would
        // ignore it) while schemars' schema of a struct without `deny_unknown_fields`
        // does not say `additionalProperties: false`.
        if schema
            && let Err(refusal) = &gate
            && refusal
                .split("; ")
                .all(|problem| problem.contains(": unknown key."))
        {
            return Ok(());
        }
        Err(TestCaseError::fail(format!(
            "{}: the gate says {:?}, the schema says {schema} for {value}",
            case.name, gate
        )))
    }

    /// Found by the property below: a `1.0` where the schema says integer (E1) together
    /// with a key the struct does not declare (E5). Each exception alone was excused; the
    /// two in one value were not.
    #[test]
    fn an_integral_float_beside_an_unknown_key_is_two_known_exceptions_not_a_disagreement() {
        let case = &cases()[0];
        for value in [
            json!({"q": "0y", "page": {"per_page": 1.0, "number": 4_294_967_295_u64}, "ownerx": -982}),
            json!({"q": "bb", "page": {"per_page": 255, "number": 1.0}, "xx": 1.0}),
        ] {
            assert!(
                case.validator.is_valid(&value),
                "the schema accepts {value}"
            );
            assert!(
                gate_accepts(case, &value).is_err(),
                "the gate refuses {value}"
            );
            check(case, &value).unwrap_or_else(|error| panic!("{error}"));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn the_gate_accepts_exactly_what_the_published_schema_accepts(
            (index, value) in case_and_arguments(),
        ) {
            check(&cases()[index], &value)?;
        }

        /// Arguments a transport parsed (an MCP `tools/call`) are read from the object,
        /// never written out as text: the verdict, and every word of a refusal, is the one
        /// the same arguments get as text.
        #[test]
        fn parsed_arguments_get_the_verdict_their_text_gets(
            (index, value) in case_and_arguments(),
        ) {
            let case = &cases()[index];
            let as_text = (case.gate)(ToolCall::new("1", case.name, value.to_string()), case.autonomy);
            match toolset::call::Arguments::object(value.clone()) {
                Some(parsed) => {
                    let as_object = (case.gate)(ToolCall::new("1", case.name, parsed), case.autonomy);
                    prop_assert_eq!(as_object, as_text, "{} with {}", case.name, value);
                }
                // Not an object: a transport hands it over as text, which is the case above.
                None => prop_assert!(as_text.is_err(), "{} accepted {}", case.name, value),
            }
        }
    }

    prop_compose! {
        /// One of the cases, by its index, and arguments for it.
        fn case_and_arguments()(
            index in 0..6_usize,
            seed in 1..u64::MAX,
            mutations in 0..3_usize,
            random in any::<bool>(),
        ) -> (usize, Value) {
            (index, generated(&cases()[index], seed, mutations, random))
        }
    }

    /// Arguments for `case`: built from its schema, or random JSON over its keys, then
    /// changed at `mutations` random spots.
    fn generated(case: &Case, seed: u64, mutations: usize, random: bool) -> Value {
        let mut rng = Rng(seed);
        let mut words = Vec::new();
        vocabulary(&case.schema, &mut words);
        words.push("x".to_owned());
        let mut value = if random && mutations == 0 {
            // Random JSON over the schema's own keys.
            let mut object = serde_json::Map::new();
            for _ in 0..rng.below(4) {
                object.insert(
                    words[rng.below(words.len())].clone(),
                    leaf(&mut rng, &words),
                );
            }
            Value::Object(object)
        } else {
            build(&case.schema, &case.schema, &mut rng, 0)
        };
        for _ in 0..mutations {
            mutate(&mut value, &mut rng, &words);
        }
        value
    }
}
