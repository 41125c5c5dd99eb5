//! Calls from the model's code (programmatic tool calling): which tools code may call is
//! the policy's one rule (`Policy::allows_from_code`: read-only tools by default, never an
//! irreversible one), the list renders it as each tool's `allowed_callers`, the gate
//! permits exactly that, and a result goes back to the code that made the call.
//!
//! The recorded responses in `fixtures/providers/` (`anthropic_code_*`,
//! `openai_responses_program_*`) are written as the SDKs' types say and judged by them
//! (`tests/validators/validate_callers.py`), with the replies this crate writes.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use toolset::call::Caller;
use toolset::consumer::{Format, anthropic, openai_responses};
use toolset::plan::Plan;
use toolset::policy::FromCode;
use toolset::prelude::*;
use toolset::report::{ProblemKind, Rejected, Report};
use toolset::request::Request;
use toolset::stream::{Anthropic, CallStream, OpenAiResponses};
use toolset::{
    Autonomy, DynamicTool, Escalation, Policy, Tier, ToolCall, ToolContext, Toolbox, tool, toolset,
};
use toolset_tests::validators::judged_by_python;

/// What ran, so a test can see that a refused call did not.
#[derive(Default)]
pub struct Store {
    ran: Vec<String>,
}

/// Look an order up by its number.
#[tool(tier = "read_only")]
async fn lookup_order(shop: &Store, number: u32) -> String {
    let _ = shop;
    format!("order {number}: late")
}

/// Put a tag on an order.
#[tool(tier = "reversible")]
async fn tag_order(shop: &mut Store, number: u32, tag: String) -> String {
    shop.ran.push(format!("tag {number} {tag}"));
    "tagged".into()
}

/// Refund an order.
#[tool(tier = "external_reversible")]
async fn refund(shop: &mut Store, number: u32) -> String {
    shop.ran.push(format!("refund {number}"));
    "refunded".into()
}

/// Delete a customer's account for good.
#[tool(tier = "irreversible")]
async fn delete_account(shop: &mut Store, id: String) -> String {
    shop.ran.push(format!("delete {id}"));
    "deleted".into()
}

fn everyone(args: &notify) -> Option<Escalation> {
    args.everyone
        .then(|| Escalation::to(Tier::Irreversible, "a message to every customer"))
}

/// Send customers a notice.
#[tool(tier = "reversible", escalate = everyone)]
async fn notify(shop: &mut Store, everyone: bool) -> String {
    shop.ran.push(format!("notify {everyone}"));
    "sent".into()
}

toolset! {
    /// A shop's tools, one of each tier, and one escalating to irreversible.
    Shop<Store> = [lookup_order, tag_order, refund, delete_account, notify];
}

fn named(name: &str) -> ShopName {
    ShopName::from_name(name).expect("a tool of the shop")
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/providers")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the fixture exists");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

fn run(shop: &mut Store, plan: Plan<Shop>) -> Report {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(Shop::apply(shop, &ToolContext::default(), plan))
}

/// A request of `policy` for Anthropic, whose code execution may call tools.
fn anthropic_with_code(policy: &Policy<Shop>) -> Request<'_, Shop> {
    Request::new(policy)
        .format(Format::Anthropic)
        .code_execution(true)
}

/// The problem of a call to `name` from code that code may not make.
fn refused_from_code(name: &str) -> (String, ProblemKind, String) {
    (
        name.to_owned(),
        ProblemKind::NotFromCode,
        format!(
            "The tool \"{name}\" cannot be called from code: call it directly, as a tool call \
             of your own."
        ),
    )
}

/// The kind and message of each problem of a rejected program, by tool name.
fn problems(rejected: &Rejected) -> Vec<(String, ProblemKind, String)> {
    rejected
        .problems()
        .iter()
        .map(|problem| (problem.name.clone(), problem.kind, problem.message.clone()))
        .collect()
}

fn code_call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments).with_caller(Caller::code("program", "call_prog_1"))
}

/// What `python3 tests/validators/validate_callers.py` says of `values`.
fn validate(values: &Map<String, Value>, file: &str) -> String {
    let said = judged_by_python(
        "tests/validators/validate_callers.py",
        &Value::Object(values.clone()),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join(file),
    );
    for kind in values.keys() {
        assert!(
            said.contains(&format!("({kind}): ")),
            "{kind} judged by none\n{said}"
        );
        assert!(
            !said.contains(&format!("({kind}): 0 judged")),
            "{kind} empty\n{said}"
        );
    }
    said
}

#[test]
fn no_policy_lets_code_call_an_irreversible_tool() {
    let policy = Policy::<Shop>::new(Autonomy::ExternalReversible);
    let error = policy
        .clone()
        .allow_from_code(named("delete_account"))
        .expect_err("an irreversible tool is refused");
    assert_eq!(error.tool(), "delete_account");
    assert!(
        error
            .to_string()
            .contains("the model can still call it directly"),
        "{error}"
    );
    // The highest ceiling there is stops below irreversible.
    let widest = policy.from_code(FromCode::ExternalReversible);
    for tool in <ShopName as ToolName>::ALL {
        let tier = Shop::spec_of(*tool).tier();
        assert_eq!(
            widest.allows_from_code(*tool),
            tier != Tier::Irreversible,
            "{tool:?}"
        );
    }
}

#[test]
fn the_default_lets_code_call_read_only_tools_only() {
    let policy = Policy::<Shop>::new(Autonomy::ExternalReversible);
    for tool in <ShopName as ToolName>::ALL {
        let read_only = Shop::spec_of(*tool).tier() == Tier::ReadOnly;
        assert_eq!(policy.allows_from_code(*tool), read_only, "{tool:?}");
    }
    let tuned = policy
        .clone()
        .from_code(FromCode::Nothing)
        .allow_from_code(named("refund"))
        .expect("refund is not irreversible")
        .direct_only(named("lookup_order"));
    assert!(tuned.allows_from_code(named("refund")));
    assert!(!tuned.allows_from_code(named("lookup_order")));
    assert!(!tuned.allows_from_code(named("tag_order")));
    // Direct-only wins over a named allowance.
    let both = policy
        .allow_from_code(named("refund"))
        .expect("refund is not irreversible")
        .direct_only(named("refund"));
    assert!(!both.allows_from_code(named("refund")));
}

#[test]
fn anthropic_calls_from_code_to_read_only_tools_run_and_answer_their_ids() {
    let message = fixture("anthropic_code_read.json");
    let calls = ToolCall::from_anthropic(&message).expect("a valid message");
    let server_tool = "srvtoolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8";
    assert_eq!(
        calls.iter().map(|call| &call.caller).collect::<Vec<_>>(),
        [
            &Caller::code("code_execution_20260120", server_tool),
            &Caller::code("code_execution_20260120", server_tool),
            &Caller::Direct,
        ]
    );
    let policy = Policy::<Shop>::new(Autonomy::Reversible);
    let request = anthropic_with_code(&policy);
    let plan = request.gate(calls.clone()).expect("reads from code pass");
    assert_eq!(plan.approved().count(), 3);
    let mut shop = Store::default();
    let report = run(&mut shop, plan);
    assert_eq!(shop.ran, ["tag 7 checked"]);
    let reply = anthropic::results(&report.results());
    let ids: Vec<&str> = reply["content"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|block| block["tool_use_id"].as_str().expect("an id"))
        .collect();
    let called: Vec<&str> = calls.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, called);
    assert!(reply.to_string().contains("order 7: late"));
    let mut values = Map::new();
    values.insert("anthropic_messages".into(), json!([message]));
    values.insert("anthropic_replies".into(), json!([reply]));
    validate(&values, "callers-anthropic-read.json");
}

#[test]
fn anthropic_writes_from_code_are_refused_and_nothing_runs() {
    let message = fixture("anthropic_code_write.json");
    let calls = ToolCall::from_anthropic(&message).expect("a valid message");
    assert!(calls.iter().all(ToolCall::is_from_code));
    let policy = Policy::<Shop>::new(Autonomy::ExternalReversible);
    let request = anthropic_with_code(&policy);
    let rejected = request
        .gate(calls)
        .expect_err("writes from code are refused");
    assert_eq!(
        problems(&rejected),
        [
            refused_from_code("refund"),
            refused_from_code("delete_account")
        ]
    );
    // Every call is answered, under its id, in the one user message.
    let reply = anthropic::results(&rejected.results());
    assert_eq!(reply["content"].as_array().map(Vec::len), Some(3));
    let mut values = Map::new();
    values.insert("anthropic_messages".into(), json!([message]));
    values.insert("anthropic_replies".into(), json!([reply]));
    validate(&values, "callers-anthropic-write.json");
}

#[test]
fn a_policy_trying_to_let_code_delete_still_cannot_and_a_permitted_write_is_proposed() {
    let message = fixture("anthropic_code_write.json");
    let calls = ToolCall::from_anthropic(&message).expect("a valid message");
    let policy = Policy::<Shop>::new(Autonomy::Reversible).from_code(FromCode::ExternalReversible);
    assert!(
        policy
            .clone()
            .allow_from_code(named("delete_account"))
            .is_err()
    );
    let request = anthropic_with_code(&policy);
    let rejected = request
        .gate(calls.clone())
        .expect_err("the delete is refused");
    assert_eq!(
        problems(&rejected)
            .iter()
            .map(|(name, kind, _)| (name.as_str(), *kind))
            .collect::<Vec<_>>(),
        [("delete_account", ProblemKind::NotFromCode)]
    );
    // Without the delete, the refund from code is withheld as a direct one would be: its
    // tier is above the autonomy.
    let without: Vec<ToolCall> = calls
        .into_iter()
        .filter(|call| call.name != "delete_account")
        .collect();
    let plan = request.gate(without).expect("the rest passes");
    assert_eq!(plan.approved().count(), 1);
    assert_eq!(plan.proposals().len(), 1);
    assert!(plan.proposals()[0].call().is_from_code());
    let mut shop = Store::default();
    let report = run(&mut shop, plan);
    assert!(shop.ran.is_empty(), "{:?}", shop.ran);
    assert_eq!(report.results().len(), 2);
}

#[test]
fn openai_program_calls_run_and_their_outputs_name_the_program() {
    let response = fixture("openai_responses_program_read.json");
    let calls = ToolCall::from_openai_responses(&response).expect("a valid response");
    let program = "call_prog_5Tg7Hj9Kl1Zx3Cv5Bn7Mq9We";
    assert_eq!(
        calls.iter().map(|call| &call.caller).collect::<Vec<_>>(),
        [
            &Caller::code("program", program),
            &Caller::code("program", program),
            &Caller::Direct,
        ]
    );
    let policy = Policy::<Shop>::new(Autonomy::Reversible);
    let request = Request::new(&policy)
        .format(Format::OpenAiResponses)
        .code_execution(true);
    let mut shop = Store::default();
    let report = run(
        &mut shop,
        request.gate(calls).expect("reads from code pass"),
    );
    let outputs = openai_responses::results(&report.results());
    assert_eq!(
        outputs[0]["caller"],
        json!({"type": "program", "caller_id": program})
    );
    assert_eq!(outputs[1]["caller"], outputs[0]["caller"]);
    assert_eq!(
        outputs[2].get("caller"),
        None,
        "a direct call's output names none"
    );
    // The next input: the response's output as it came (the program item, fingerprint
    // and all), then the outputs.
    let mut input = response["output"].as_array().expect("items").clone();
    input.extend(outputs.as_array().expect("items").iter().cloned());
    let fingerprint = |items: &[Value]| {
        items
            .iter()
            .find(|item| item["type"] == "program")
            .map(|item| item["fingerprint"].clone())
    };
    assert_eq!(
        fingerprint(&input),
        Some(json!("pfp_v1.9c3e7a1b52d84f06ae1b7c9d3f2e8a40"))
    );
    let mut values = Map::new();
    values.insert("openai_responses".into(), json!([response]));
    values.insert("openai_responses_inputs".into(), json!([input]));
    validate(&values, "callers-openai-read.json");
}

#[test]
fn openai_program_writes_are_refused_with_the_model_facing_message() {
    let response = fixture("openai_responses_program_write.json");
    let calls = ToolCall::from_openai_responses(&response).expect("a valid response");
    // The policy lets code call everything it may: the delete is refused all the same.
    let policy = Policy::<Shop>::new(Autonomy::ExternalReversible).from_code(FromCode::Reversible);
    let request = Request::new(&policy)
        .format(Format::OpenAiResponses)
        .code_execution(true);
    let rejected = request
        .gate(calls)
        .expect_err("writes from code are refused");
    let found = problems(&rejected);
    assert_eq!(
        found
            .iter()
            .map(|(name, kind, _)| (name.as_str(), *kind))
            .collect::<Vec<_>>(),
        [
            ("refund", ProblemKind::NotFromCode),
            ("delete_account", ProblemKind::NotFromCode)
        ]
    );
    assert!(found[0].2.contains("call it directly"));
    let outputs = openai_responses::results(&rejected.results());
    let items = outputs.as_array().expect("items");
    assert_eq!(items.len(), 3);
    for item in items {
        assert_eq!(item["caller"]["type"], "program");
    }
    let mut input = response["output"].as_array().expect("items").clone();
    input.extend(items.iter().cloned());
    let mut values = Map::new();
    values.insert("openai_responses".into(), json!([response]));
    values.insert("openai_responses_inputs".into(), json!([input]));
    validate(&values, "callers-openai-write.json");
}

#[test]
fn an_escalation_to_irreversible_is_refused_from_code_and_proposed_directly() {
    let policy = Policy::<Shop>::new(Autonomy::Reversible).from_code(FromCode::Reversible);
    let request = Request::new(&policy).code_execution(true);
    let call = code_call("c1", "notify", r#"{"everyone":true}"#);
    let rejected = request
        .gate([call.clone()])
        .expect_err("irreversible from code");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::NotFromCode);
    assert!(
        rejected.problems()[0]
            .message
            .contains("a message to every customer"),
        "{}",
        rejected.problems()[0].message
    );
    assert_eq!(request.check(&call), Err(rejected.problems().to_vec()));
    // A small notice from code runs; the big one made directly is proposed.
    let plan = request
        .gate([code_call("c2", "notify", r#"{"everyone":false}"#)])
        .expect("a reversible call from code passes");
    assert_eq!(plan.approved().count(), 1);
    let direct = ToolCall::new("c3", "notify", r#"{"everyone":true}"#);
    let plan = request.gate([direct]).expect("a direct call passes");
    assert_eq!(plan.proposals().len(), 1);
}

#[test]
fn without_code_execution_nothing_is_called_from_code_and_the_list_is_unchanged() {
    let policy = Policy::<Shop>::new(Autonomy::Reversible);
    for format in Format::ALL {
        let plain = Request::new(&policy).format(format);
        assert!(!plain.tool_list().contains("allowed_callers"), "{format}");
        let rejected = plain
            .gate([code_call("c1", "lookup_order", r#"{"number":1}"#)])
            .expect_err("no code runs in this request");
        assert_eq!(rejected.problems()[0].kind, ProblemKind::NotFromCode);
        // Formats whose tools have no `allowed_callers` render the same list with it.
        let with = Request::new(&policy).format(format).code_execution(true);
        if !matches!(format, Format::Anthropic | Format::OpenAiResponses) {
            assert_eq!(with.tool_list(), plain.tool_list(), "{format}");
        }
    }
}

/// The calls of an Anthropic stream whose one `tool_use` block calls `name` with
/// `arguments` (streamed as one delta), its `caller` as given.
fn streamed_anthropic(name: &str, caller: Value, arguments: &str) -> Vec<ToolCall> {
    let mut stream = CallStream::<Anthropic>::new();
    for event in [
        json!({"type": "message_start", "message": {"id": "msg_1"}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": name, "input": {},
            "caller": caller}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": arguments}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_stop"}),
    ] {
        stream.feed_event(&event).expect("a valid event");
    }
    stream.finish().expect("a complete message")
}

#[test]
fn streams_carry_the_caller() {
    let caller = json!({"type": "code_execution_20260120", "tool_id": "srvtoolu_1"});
    let calls = streamed_anthropic("lookup_order", caller, "{\"number\":7}");
    assert_eq!(
        calls[0].caller,
        Caller::code("code_execution_20260120", "srvtoolu_1")
    );

    let item = |arguments: &str| {
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
               "name": "lookup_order", "arguments": arguments,
               "caller": {"type": "program", "caller_id": "call_prog_1"}})
    };
    let events = |done_caller: Value| {
        let mut done = item("{\"number\":7}");
        done["caller"] = done_caller;
        [
            json!({"type": "response.output_item.added", "output_index": 0, "item": item("")}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0,
                   "item_id": "fc_1", "delta": "{\"number\":7}"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
            json!({"type": "response.completed", "response": {}}),
        ]
    };
    let mut stream = CallStream::<OpenAiResponses>::new();
    for event in events(json!({"type": "program", "caller_id": "call_prog_1"})) {
        stream.feed_event(&event).expect("a valid event");
    }
    let calls = stream.finish().expect("a complete response");
    assert_eq!(calls[0].caller, Caller::code("program", "call_prog_1"));
    // A finished item naming another caller than the added one is refused.
    let mut stream = CallStream::<OpenAiResponses>::new();
    let fed: Result<Vec<_>, _> = events(json!({"type": "direct"}))
        .iter()
        .map(|event| stream.feed_event(event))
        .collect();
    assert!(fed.is_err());
    // A caller that does not read fails the stream, naming it.
    let mut stream = CallStream::<OpenAiResponses>::new();
    let mut added = item("");
    added["caller"] = json!("program");
    let error = stream
        .feed_event(
            &json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        )
        .expect_err("a caller is an object");
    assert!(error.to_string().contains("caller"), "{error}");
}

/// A toolbox with a runtime tool of each tier but irreversible's, and an irreversible one.
fn toolbox() -> Toolbox<Shop> {
    Shop::toolbox()
        .with_all(
            [
                ("memo", Tier::ReadOnly),
                ("note", Tier::Reversible),
                ("wire", Tier::Irreversible),
            ]
            .map(|(name, tier)| {
                DynamicTool::new(name, tier, "A runtime tool.")
                    .handler(|_args: Value, _ctx: &ToolContext| async move { "done" })
            }),
        )
        .expect("valid runtime tools")
}

#[test]
fn a_policy_letting_code_call_an_irreversible_runtime_tool_is_refused_when_it_joins() {
    let toolbox = toolbox();
    let policy = Policy::<Shop>::new(Autonomy::Reversible)
        .allow_from_code("wire")
        .expect("checked when the toolbox joins");
    let error = Request::new(&policy)
        .toolbox(&toolbox)
        .expect_err("an irreversible runtime tool");
    assert_eq!(error.irreversible_from_code(), ["wire"]);
    assert!(error.to_string().contains("no policy may"), "{error}");
    let policy = Policy::<Shop>::new(Autonomy::Reversible)
        .allow_from_code("note")
        .expect("checked when the toolbox joins");
    let request = Request::new(&policy)
        .toolbox(&toolbox)
        .expect("note may be called from code")
        .code_execution(true);
    assert!(request.gate([code_call("c1", "note", "{}")]).is_ok());
    let refused = request
        .gate([code_call("c2", "wire", "{}")])
        .expect_err("never from code");
    assert_eq!(refused.problems()[0].kind, ProblemKind::NotFromCode);
}

const CEILINGS: [FromCode; 4] = [
    FromCode::Nothing,
    FromCode::ReadOnly,
    FromCode::Reversible,
    FromCode::ExternalReversible,
];

/// Whether a rendered tool's `allowed_callers` names a code caller.
fn code_caller_in(tool: &Value) -> Option<bool> {
    let callers = tool.get("allowed_callers")?.as_array()?;
    Some(callers.iter().any(|caller| caller != "direct"))
}

/// One case of the property below: checks every permitted tool of the list a request
/// under these rules renders, and says how many it checked.
fn check_callers(
    ceiling: FromCode,
    flags: &[(bool, bool, u8)],
    runtime_flags: &[(bool, bool)],
    code_execution: bool,
    format: Format,
) -> Result<usize, TestCaseError> {
    let mut policy = Policy::<Shop>::new(Autonomy::Reversible).from_code(ceiling);
    for (&tool, &(allow, direct_only, availability)) in
        <ShopName as ToolName>::ALL.iter().zip(flags)
    {
        if allow {
            policy = match policy.clone().allow_from_code(tool) {
                Ok(policy) => policy,
                Err(_) => {
                    prop_assert_eq!(Shop::spec_of(tool).tier(), Tier::Irreversible);
                    policy
                }
            };
        }
        if direct_only {
            policy = policy.direct_only(tool);
        }
        policy = match availability {
            0 => policy.hide(tool),
            1 => policy.deny(tool),
            2 => policy.defer(tool),
            _ => policy,
        };
    }
    for (&name, &(allow, direct_only)) in ["memo", "note"].iter().zip(runtime_flags) {
        if allow {
            policy = policy
                .allow_from_code(name)
                .expect("a runtime tool's tier is checked when the toolbox joins");
        }
        if direct_only {
            policy = policy.direct_only(name);
        }
    }
    let toolbox = toolbox();
    let request = Request::new(&policy)
        .format(format)
        .toolbox(&toolbox)
        .expect("the names are the toolbox's")
        .code_execution(code_execution);
    let list: Vec<Value> = serde_json::from_str(&request.tool_list()).expect("a JSON list");
    let offered = request.offered();
    let not_from_code = |gated: Result<Plan<Shop>, Rejected>| matches!(&gated, Err(rejected) if rejected.problems().iter().any(|p| p.kind == ProblemKind::NotFromCode));
    let mut checked = 0;
    for tool in &list {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        if !offered.contains(&name) || name == "tool_search" {
            continue;
        }
        let rendered = code_caller_in(tool);
        prop_assert_eq!(rendered.is_some(), code_execution, "{} in {}", name, tool);
        let refused = not_from_code(request.gate([code_call("c1", name, "{}")]));
        prop_assert_eq!(
            refused,
            rendered != Some(true),
            "{} under {:?}",
            name,
            policy
        );
        let direct = not_from_code(request.gate([ToolCall::new("c1", name, "{}")]));
        prop_assert!(!direct, "{} refused directly", name);
        checked += 1;
    }
    Ok(checked)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// For random policies (a ceiling, tools allowed from code or kept direct-only, hidden,
    /// denied, deferred; runtime tools likewise), with code execution or without, the
    /// rendered `allowed_callers` says exactly what the gate permits from code: a call from
    /// code to a permitted tool is refused as `NotFromCode` iff its rendering lacks the
    /// code caller, and a direct call never is.
    #[test]
    fn allowed_callers_say_exactly_what_the_gate_permits_from_code(
        ceiling in 0..CEILINGS.len(),
        flags in proptest::collection::vec((any::<bool>(), any::<bool>(), 0..8u8), 5),
        runtime_flags in proptest::collection::vec((any::<bool>(), any::<bool>()), 2),
        code_execution in any::<bool>(),
        anthropic_format in any::<bool>(),
    ) {
        let format = if anthropic_format { Format::Anthropic } else { Format::OpenAiResponses };
        check_callers(CEILINGS[ceiling], &flags, &runtime_flags, code_execution, format)?;
    }
}

#[test]
fn the_property_checks_every_tool_when_all_are_offered() {
    for format in [Format::Anthropic, Format::OpenAiResponses] {
        for ceiling in CEILINGS {
            let checked = check_callers(
                ceiling,
                &[(true, false, 7); 5],
                &[(true, false); 2],
                true,
                format,
            )
            .expect("the property holds");
            // The five tools of the set and the toolbox's three.
            assert_eq!(checked, 8, "{format} {ceiling:?}");
        }
    }
}

#[test]
fn a_proposal_from_code_is_approved_under_a_request_that_lets_code_call_it_and_answers_the_code() {
    use toolset::approval::{ApprovalError, Approved};
    use toolset::{Approvals, MemoryStore};
    let policy = Policy::<Shop>::new(Autonomy::Reversible).from_code(FromCode::ExternalReversible);
    let request = Request::new(&policy).code_execution(true);
    let plan = request
        .gate([code_call("c1", "refund", r#"{"number":7}"#)])
        .expect("a refund from code is permitted");
    let proposal = plan.proposals()[0].clone();
    assert_eq!(
        proposal.pending_result().caller,
        Caller::code("program", "call_prog_1")
    );
    let approvals = Approvals::new(MemoryStore::new());
    approvals.submit(&proposal).expect("stored");
    // Under a request in force that runs no code, the call from code is not approved.
    let refused = approvals.approve(&proposal.reviewed(), &Request::new(&policy));
    assert!(
        matches!(&refused, Err(ApprovalError::Invalid(problem)) if problem.kind == ProblemKind::NotFromCode),
        "{refused:?}"
    );
    let Ok(Approved::Run(call)) = approvals.approve(&proposal.reviewed(), &request) else {
        panic!("approved under the request that lets code call it");
    };
    let mut shop = Store::default();
    let report = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(call.apply(&mut shop, &ToolContext::default()));
    assert_eq!(shop.ran, ["refund 7"]);
    let outputs = openai_responses::results(&report.results());
    assert_eq!(
        outputs[0]["caller"],
        json!({"type": "program", "caller_id": "call_prog_1"})
    );
}

#[test]
fn a_null_caller_counts_as_code_and_a_write_from_it_is_refused() {
    // `"caller": null` says nothing of who made the call; DESIGN.md: a maker the consumer
    // does not recognize counts as code, so the narrower permission applies.
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_null", "name": "tag_order",
         "input": {"number": 7, "tag": "late"}, "caller": null},
    ]});
    let calls = ToolCall::from_anthropic(&message).expect("a valid message");
    assert!(calls[0].is_from_code(), "{:?}", calls[0].caller);
    let policy = Policy::<Shop>::new(Autonomy::ExternalReversible);
    let request = anthropic_with_code(&policy);
    let rejected = request
        .gate(calls)
        .expect_err("a write from an unknown maker is refused");
    assert_eq!(problems(&rejected), [refused_from_code("tag_order")]);
    // Streamed, the same block reads the same way.
    let streamed = streamed_anthropic("tag_order", Value::Null, r#"{"number":7,"tag":"late"}"#);
    assert!(streamed[0].is_from_code(), "{:?}", streamed[0].caller);
    assert!(request.gate(streamed).is_err());
    // OpenAI Responses declares `null` as a caller of its own (`direct`, `program` or
    // `null`: the SDK's `ResponseFunctionToolCall.caller`), for a call no program made:
    // the model's, recognized, so the write is the model's own.
    let output = json!([{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                         "name": "tag_order", "arguments": "{\"number\":7,\"tag\":\"late\"}",
                         "caller": null}]);
    let calls = ToolCall::from_openai_responses(&output).expect("a valid output array");
    assert_eq!(calls[0].caller, Caller::Direct);
    let request = Request::new(&policy)
        .format(Format::OpenAiResponses)
        .code_execution(true);
    assert!(request.gate(calls).is_ok());
}
