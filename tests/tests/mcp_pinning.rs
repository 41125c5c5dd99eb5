//! Pinned proxied tools (issue 41, item 4): a tool of another MCP server whose definition
//! changes after the host registered it is withheld (not offered, its calls refused naming
//! the change) until the host accepts the new definition; against the fixture server
//! `tests/src/bin/fixture_mcp.rs` with `FIXTURE_DRIFT` set, whose tool `drift` changes how
//! it lists `echo` at run time.
#![cfg(feature = "mcp-client")]

use proptest::prelude::*;
use rmcp::model::Tool;
use serde_json::{Value, json};
use std::time::Duration;
use toolset::consumer::Format;
use toolset::prelude::*;
use toolset::report::Outcome;
use toolset::store::Store;
use toolset::toolbox::{AcceptError, McpTools, PINNED_FIELDS, ToolDefinition};
use toolset::{Autonomy, MemoryStore, SqliteStore, Tier, ToolCall, ToolContext, Toolbox};
use toolset::{tool, toolset};
use toolset_tests::postgres;

/// The host's own state.
#[derive(Default)]
pub struct Log;

/// Say hello.
#[tool(tier = "read_only")]
pub async fn hello(_log: &Log) -> String {
    "hello".to_owned()
}

toolset! { pub Host<Log> = [hello]; }

/// The fixture server with `echo` listed with `changes` from the start, as the namespace
/// `fix`, every tool read-only to the host (so calls run at once under `ReadOnly`).
async fn fixture(changes: &str) -> McpTools {
    fixture_as("fix", changes).await
}

/// [`fixture`] as the namespace `label`.
async fn fixture_as(label: &str, changes: &str) -> McpTools {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
    command.env("FIXTURE_DRIFT", changes);
    McpTools::connect_stdio(label, command)
        .await
        .expect("the fixture server starts")
        .tier(|_| Tier::ReadOnly)
}

/// The names the model is offered.
fn offered(toolbox: &Toolbox<Host>) -> Vec<String> {
    toolbox
        .request(&Host::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .format(Format::Mcp)
        .offered()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Gates and applies one call: its outcome, or the gate's problem as `Err`.
async fn run(toolbox: &Toolbox<Host>, name: &str, arguments: Value) -> Result<Outcome, String> {
    let plan = toolbox
        .request(&Host::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .gate([ToolCall::new("1", name, arguments.to_string())])
        .map_err(|rejected| {
            let problem = &rejected.problems()[0];
            format!("{:?}: {}", problem.kind, problem.message)
        })?;
    let report = Host::apply(&mut Log, &ToolContext::default(), plan).await;
    Ok(report.outcomes().next().expect("one outcome").1.clone())
}

/// Has the server change how it lists `echo` (`change`, see the fixture), and waits for
/// the namespace's refresh.
async fn change(toolbox: &Toolbox<Host>, tools: &McpTools, change: &str) {
    let mut refreshes = tools.refreshes();
    let before = *refreshes.borrow();
    let drift = tools.local_name("drift");
    let outcome = run(toolbox, &drift, json!({ "text": change })).await;
    assert!(matches!(outcome, Ok(Outcome::Done(_))), "{outcome:?}");
    tokio::time::timeout(
        Duration::from_secs(10),
        refreshes.wait_for(|now| *now > before),
    )
    .await
    .expect("the server's list_changed arrives")
    .expect("the namespace lives");
}

fn registered(tools: &McpTools) -> Toolbox<Host> {
    Host::toolbox()
        .with_namespace(tools.clone())
        .expect("the fixture's tools register")
}

fn has(names: &[String], name: &str) -> bool {
    names.iter().any(|offered| offered == name)
}

#[tokio::test]
async fn a_changed_description_is_withheld_unoffered_and_its_call_refused_naming_the_change() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    assert!(has(&offered(&toolbox), "fix_echo"));
    assert!(
        tools.drift().is_empty(),
        "the first listing is pinned as it comes"
    );

    change(&toolbox, &tools, "description").await;
    assert!(!has(&offered(&toolbox), "fix_echo"), "not offered");
    assert!(toolbox.runtime_tool("fix_echo").is_none());
    let refused = run(&toolbox, "fix_echo", json!({"text": "hi"}))
        .await
        .expect_err("the gate refuses the call");
    assert!(refused.starts_with("Denied"), "{refused}");
    assert!(
        refused.contains("\"fix_echo\" is withheld") && refused.contains("changed its description"),
        "{refused}"
    );
    let drift = tools.drift();
    assert_eq!(drift.len(), 1);
    assert_eq!(drift[0].tool, "echo");
    assert_eq!(drift[0].local, "fix_echo");
    assert_eq!(drift[0].changed, ["description"]);
    let pinned = drift[0].pinned.as_ref().expect("a changed tool has a pin");
    assert_eq!(pinned.as_json()["description"], "Echo the text back.");
    assert_eq!(
        drift[0].listed.as_json()["description"],
        "Echo the text back, and mail it to the server's owner."
    );
    // The other tools are untouched.
    assert!(matches!(
        run(&toolbox, "fix_fail", json!({})).await,
        Ok(Outcome::Failed { .. })
    ));
}

/// Every event of this test binary, from the first call on: a global subscriber, since a
/// scoped one misses events whose callsite another test's thread registered first.
fn captured() -> &'static toolset_tests::captured::Captured {
    use tracing_subscriber::layer::SubscriberExt as _;
    static CAPTURED: std::sync::OnceLock<toolset_tests::captured::Captured> =
        std::sync::OnceLock::new();
    CAPTURED.get_or_init(|| {
        let captured = toolset_tests::captured::Captured::default();
        let subscriber = tracing_subscriber::registry().with(captured.clone());
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
        captured
    })
}

#[tokio::test]
async fn a_withheld_tool_is_reported_once_by_a_warning_naming_the_change() {
    let captured = captured();
    // A label of its own: the other tests' events are captured too.
    let tools = fixture_as("warned", "").await;
    let toolbox = registered(&tools);
    change(&toolbox, &tools, "annotations").await;
    change(&toolbox, &tools, "nothing").await;
    let text = captured.text();
    let warnings: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("toolset.mcp.tool_withheld") && line.contains("\"warned\""))
        .collect();
    assert_eq!(warnings.len(), 1, "once, not at every listing: {text}");
    assert!(
        warnings[0].contains("WARN")
            && warnings[0].contains("\"echo\"")
            && warnings[0].contains("annotations"),
        "{}",
        warnings[0]
    );
}

#[tokio::test]
async fn a_call_gated_before_the_change_never_reaches_the_server() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    let plan = toolbox
        .request(&Host::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .gate([ToolCall::new("1", "fix_echo", r#"{"text":"hi"}"#)])
        .expect("valid before the change");
    change(&toolbox, &tools, "description").await;
    let report = Host::apply(&mut Log, &ToolContext::default(), plan).await;
    let outcome = report.outcomes().next().expect("one outcome").1;
    assert!(
        matches!(outcome, Outcome::Failed { message } if message.contains("changed its description")),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn accepting_the_reviewed_definition_offers_the_tool_again_as_the_server_lists_it() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    change(&toolbox, &tools, "description").await;
    let drift = tools.drift();
    tools.accept(&drift[0]).expect("accepted");
    assert!(tools.drift().is_empty());
    assert!(has(&offered(&toolbox), "fix_echo"));
    let echo = toolbox.runtime_tool("fix_echo").expect("registered again");
    assert_eq!(
        echo.spec().description(),
        "Echo the text back, and mail it to the server's owner."
    );
    let outcome = run(&toolbox, "fix_echo", json!({"text": "hi"})).await;
    assert!(
        matches!(&outcome, Ok(Outcome::Done(output)) if output.text_content() == "echo: hi"),
        "{outcome:?}"
    );
    // A drift read before the acceptance is stale: it accepts nothing more.
    assert!(matches!(
        tools.accept(&drift[0]),
        Err(AcceptError::Stale(tool)) if tool == "echo"
    ));
}

#[tokio::test]
async fn a_drift_read_before_the_server_changed_the_tool_again_accepts_nothing() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    change(&toolbox, &tools, "description").await;
    let reviewed = tools.drift();
    change(&toolbox, &tools, "input").await;
    assert!(matches!(
        tools.accept(&reviewed[0]),
        Err(AcceptError::Stale(_))
    ));
    assert!(!has(&offered(&toolbox), "fix_echo"), "still withheld");
    assert_eq!(tools.drift()[0].changed, ["description", "inputSchema"]);
}

#[tokio::test]
async fn an_unchanged_relisting_changes_nothing_whatever_its_key_order() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    let before = toolbox.runtime_tool("fix_echo").expect("registered");
    // The same definition, its schema's keys in another order; then a re-listing of all.
    change(&toolbox, &tools, "reorder").await;
    change(&toolbox, &tools, "nothing").await;
    assert!(tools.drift().is_empty());
    assert!(has(&offered(&toolbox), "fix_echo"));
    let after = toolbox.runtime_tool("fix_echo").expect("still registered");
    assert_eq!(after.spec().description(), before.spec().description());
    assert!(matches!(
        run(&toolbox, "fix_echo", json!({"text": "hi"})).await,
        Ok(Outcome::Done(_))
    ));
}

#[tokio::test]
async fn a_changed_schema_title_or_annotations_is_withheld_too() {
    for (change_made, field) in [
        ("input", "inputSchema"),
        ("output", "outputSchema"),
        ("annotations", "annotations"),
        ("title", "title"),
    ] {
        let tools = fixture("").await;
        let toolbox = registered(&tools);
        change(&toolbox, &tools, change_made).await;
        assert!(!has(&offered(&toolbox), "fix_echo"), "{change_made}");
        let drift = tools.drift();
        assert_eq!(drift.len(), 1, "{change_made}");
        assert_eq!(drift[0].changed, [field], "{change_made}");
        let refused = run(&toolbox, "fix_echo", json!({"text": "hi"}))
            .await
            .expect_err("refused");
        assert!(refused.contains(field), "{change_made}: {refused}");
        tools.close().await;
    }
}

#[tokio::test]
async fn an_added_tool_is_offered_by_default_and_held_when_the_host_asks() {
    let tools = fixture("").await;
    let toolbox = registered(&tools);
    change(&toolbox, &tools, "add").await;
    assert!(has(&offered(&toolbox), "fix_added"), "offered by default");
    assert!(tools.drift().is_empty());

    let tools = fixture("").await.hold_new_tools();
    let toolbox = registered(&tools);
    assert!(
        has(&offered(&toolbox), "fix_echo"),
        "the first listing is pinned"
    );
    change(&toolbox, &tools, "add").await;
    assert!(!has(&offered(&toolbox), "fix_added"), "held");
    let refused = run(&toolbox, "fix_added", json!({}))
        .await
        .expect_err("refused");
    assert!(refused.contains("added it after"), "{refused}");
    let drift = tools.drift();
    assert_eq!(drift.len(), 1);
    assert!(drift[0].is_new() && drift[0].tool == "added");
    tools.accept(&drift[0]).expect("accepted");
    assert!(has(&offered(&toolbox), "fix_added"));
    assert!(matches!(
        run(&toolbox, "fix_added", json!({})).await,
        Ok(Outcome::Done(_))
    ));
}

#[tokio::test]
async fn pins_survive_a_restart_through_sqlite() {
    let dir = std::env::temp_dir().join(format!("toolset-pins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("pins.db");
    let _ = std::fs::remove_file(&path);
    {
        let store = SqliteStore::open(&path).expect("opens");
        let tools = fixture("").await.pinned_in(store);
        let toolbox = registered(&tools);
        assert!(has(&offered(&toolbox), "fix_echo"));
        tools.close().await;
    }
    // Restarted, against a server that changed `echo` while the host was down.
    let store = SqliteStore::open(&path).expect("opens again");
    let tools = fixture("annotations").await.pinned_in(store);
    let toolbox = registered(&tools);
    assert!(
        !has(&offered(&toolbox), "fix_echo"),
        "withheld from the start"
    );
    let drift = tools.drift();
    assert_eq!(drift.len(), 1);
    assert_eq!(drift[0].changed, ["annotations"]);
    tools.accept(&drift[0]).expect("accepted");
    tools.close().await;
    // The acceptance is the pin now, for the next start too.
    let store = SqliteStore::open(&path).expect("opens a third time");
    let tools = fixture("annotations").await.pinned_in(store);
    let toolbox = registered(&tools);
    assert!(has(&offered(&toolbox), "fix_echo"));
    tools.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn two_replicas_on_one_postgres_database_agree() {
    let Some(url) = postgres::url("two_replicas_on_one_postgres_database_agree")
        .map(|url| postgres::fresh_database(&url, "pins"))
    else {
        return;
    };
    let store = || toolset::PostgresStore::connect(&url).expect("connects");
    let first = fixture("").await.pinned_in(store());
    let first_box = registered(&first);
    // A replica started after the server changed `echo` compares with the first's pin.
    let second = fixture("description").await.pinned_in(store());
    let second_box = registered(&second);
    assert!(has(&offered(&first_box), "fix_echo"));
    assert!(!has(&offered(&second_box), "fix_echo"));
    assert_eq!(second.drift()[0].changed, ["description"]);
    // The first replica's server changes too: both withhold it.
    change(&first_box, &first, "description").await;
    assert!(!has(&offered(&first_box), "fix_echo"));
    // Accepted on one replica, the other offers it at its next listing.
    first.accept(&first.drift()[0]).expect("accepted");
    assert!(has(&offered(&first_box), "fix_echo"));
    assert!(
        matches!(
            second.accept(&second.drift()[0]),
            Err(AcceptError::Stale(_))
        ),
        "accepted once, by one replica"
    );
    assert!(has(&offered(&second_box), "fix_echo"), "re-read on refusal");
    change(&second_box, &second, "nothing").await;
    assert!(has(&offered(&second_box), "fix_echo"));
    first.close().await;
    second.close().await;
}

/// A store whose pins fail once it is broken.
#[derive(Default)]
struct Breakable {
    pins: MemoryStore,
    broken: std::sync::atomic::AtomicBool,
}

impl Breakable {
    fn check(&self) -> Result<(), toolset::store::StoreError> {
        if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(toolset::store::StoreError::new("the disk is gone"));
        }
        Ok(())
    }
}

impl Store for Breakable {
    fn pins(&self, source: &str) -> Result<Vec<toolset::store::Pin>, toolset::store::StoreError> {
        self.check()?;
        self.pins.pins(source)
    }
    fn pin(
        &self,
        source: &str,
        pin: &toolset::store::Pin,
        replacing: Option<&str>,
    ) -> Result<bool, toolset::store::StoreError> {
        self.check()?;
        self.pins.pin(source, pin, replacing)
    }
    toolset_tests::forward_store!(pins: insert, get, resolve, decline, usage, expired, forget,
        waiting, start, end, entry, in_doubt, rerun, undelivered, mark_delivered,
        load_run, save_run, newest_generation);
}

#[tokio::test]
async fn a_pin_store_that_fails_withholds_every_tool_of_the_namespace() {
    let store = std::sync::Arc::new(Breakable::default());
    let tools = fixture("").await.pinned_in(std::sync::Arc::clone(&store));
    let toolbox = registered(&tools);
    assert!(has(&offered(&toolbox), "fix_echo"));
    let plan = toolbox
        .request(&Host::policy(Autonomy::ReadOnly))
        .expect("no unknown runtime name")
        .gate([ToolCall::new("1", "fix_echo", r#"{"text":"hi"}"#)])
        .expect("valid while the store works");
    store
        .broken
        .store(true, std::sync::atomic::Ordering::SeqCst);
    change(&toolbox, &tools, "nothing").await;
    let names = offered(&toolbox);
    assert!(
        !names.iter().any(|name| name.starts_with("fix_")),
        "{names:?}"
    );
    let refused = run(&toolbox, "fix_fail", json!({}))
        .await
        .expect_err("refused");
    assert!(refused.contains("could not be checked"), "{refused}");
    assert!(tools.problems()[0].message.contains("the disk is gone"));
    // A call gated while the store worked is refused at apply too.
    let report = Host::apply(&mut Log, &ToolContext::default(), plan).await;
    let outcome = report.outcomes().next().expect("one outcome").1;
    assert!(
        matches!(outcome, Outcome::Failed { message } if message.contains("could not be checked")),
        "{outcome:?}"
    );
    // A registration whose pins cannot be read fails, saying why.
    let refused = Host::toolbox()
        .with_namespace(fixture("").await.pinned_in(store))
        .expect_err("the store fails");
    assert!(
        refused.to_string().contains("the disk is gone"),
        "{refused}"
    );
}

/// A pin is written once, and replaced only over the fingerprint its writer read; each
/// source's pins are its own.
fn pins_once_and_replaces_only_the_pin_read(store: &dyn Store) {
    let pin = |fingerprint: &str| toolset::store::Pin::new("echo", fingerprint, "{}");
    assert!(store.pin("fix", &pin("a"), None).expect("pins"));
    assert!(
        !store.pin("fix", &pin("b"), None).expect("answers"),
        "pinned already"
    );
    assert!(
        !store.pin("fix", &pin("b"), Some("x")).expect("answers"),
        "not the pin read"
    );
    assert!(store.pin("fix", &pin("b"), Some("a")).expect("replaces"));
    let pins = store.pins("fix").expect("reads");
    assert_eq!(pins, [pin("b")]);
    assert!(store.pins("other").expect("reads").is_empty());
    assert!(
        !store.pin("other", &pin("c"), Some("b")).expect("answers"),
        "another source"
    );
}

#[test]
fn every_store_pins_once_and_replaces_only_the_pin_read() {
    pins_once_and_replaces_only_the_pin_read(&MemoryStore::new());
    let dir = std::env::temp_dir().join(format!("toolset-pin-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("pins.db");
    let _ = std::fs::remove_file(&path);
    pins_once_and_replaces_only_the_pin_read(&SqliteStore::open(&path).expect("opens"));
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(url) = postgres::url("every_store_pins_once_and_replaces_only_the_pin_read") {
        let url = postgres::fresh_database(&url, "pin_store");
        let store = toolset::PostgresStore::connect(&url).expect("connects");
        pins_once_and_replaces_only_the_pin_read(&store);
    }
}

/// A tool definition as a server lists it.
fn definition(value: &Value) -> ToolDefinition {
    let tool: Tool = serde_json::from_value(value.clone()).expect("a tool");
    ToolDefinition::of(&tool)
}

/// `value` with every object's keys in reverse order.
fn reversed(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .rev()
                .map(|(key, member)| (key.clone(), reversed(member)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// A JSON value of a schema's or an annotation's kind.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from),
        (0u32..100).prop_map(Value::from),
    ]
}

prop_compose! {
    /// A tool with every pinned field present.
    fn a_tool()(
        name in "[a-z]{1,8}",
        title in "[A-Za-z ]{0,8}",
        description in ".{0,20}",
        properties in prop::collection::btree_map("[a-z]{1,5}", leaf(), 0..4),
        output in prop::collection::btree_map("[a-z]{1,5}", leaf(), 0..3),
        read_only in any::<bool>(),
        destructive in any::<bool>(),
    ) -> Value {
        json!({
            "name": name,
            "title": title,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
            "outputSchema": {"type": "object", "properties": output},
            "annotations": {"readOnlyHint": read_only, "destructiveHint": destructive},
        })
    }
}

/// `tool` with one pinned field (by index into [`PINNED_FIELDS`]) changed.
fn changed(tool: &Value, field: usize) -> Value {
    let mut tool = tool.clone();
    let name = PINNED_FIELDS[field];
    match name {
        "name" | "title" | "description" => {
            let text = tool[name].as_str().unwrap_or_default().to_owned();
            tool[name] = Value::from(format!("{text}!"));
        }
        "inputSchema" | "outputSchema" => {
            tool[name]["properties"]["zz_added"] = json!({"type": "string"});
        }
        _ => {
            let read_only = tool[name]["readOnlyHint"].as_bool().unwrap_or(false);
            tool[name]["readOnlyHint"] = Value::from(!read_only);
        }
    }
    tool
}

proptest! {
    #[test]
    fn any_change_to_one_pinned_field_changes_the_fingerprint_and_key_order_does_not(
        tool in a_tool(),
        field in 0..PINNED_FIELDS.len(),
    ) {
        let pinned = definition(&tool);
        let listed = definition(&changed(&tool, field));
        prop_assert_ne!(pinned.fingerprint(), listed.fingerprint());
        prop_assert_eq!(pinned.changed_fields(&listed), vec![PINNED_FIELDS[field]]);
        let reordered = definition(&reversed(&tool));
        prop_assert_eq!(pinned.fingerprint(), reordered.fingerprint());
        prop_assert!(pinned.changed_fields(&reordered).is_empty());
    }
}
