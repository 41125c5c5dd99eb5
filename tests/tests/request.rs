//! A request's tool list and its gate are decided by one thing (DESIGN.md, "One invariant
//! above all"): what the list offers is what the gate permits; what the history names is
//! declared; activating only appends; and tool search works on every consumer.

use proptest::prelude::*;
use serde_json::Value;
use toolset::call::Caller;
use toolset::consumer::{Announced, ChoiceMode, Format, Order, ToolChoiceError, tool_list};
use toolset::policy::{FromCode, Trifecta};
use toolset::prelude::*;
use toolset::report::{Outcome, ProblemKind};
use toolset::request::{Activations, Request};
use toolset::run::Exposure;
use toolset::search::ToolSearch;
use toolset::search::{Ranking, SEARCH_TOOL_NAME};
use toolset::{
    Autonomy, DynamicTool, Labels, Policy, Tier, ToolCall, ToolContext, ToolOutput, Toolbox, tool,
    toolset,
};

/// Tell the time.
#[tool(tier = "read_only")]
async fn now() -> String {
    "noon".into()
}

/// Archive an item.
#[tool(tier = "reversible", sends = "outside")]
async fn archive(
    /// The item's id.
    id: Option<u32>,
) -> String {
    format!("archived {id:?}")
}

/// Get the weather forecast for a city.
#[tool(tier = "read_only", deferred)]
async fn get_weather(
    /// The city, e.g. "Lisbon".
    city: Option<String>,
) -> String {
    format!("sunny in {city:?}")
}

/// Convert an amount between currencies.
#[tool(tier = "read_only", deferred, reads = "untrusted")]
async fn convert(
    /// The currency code to convert to, e.g. "EUR".
    to: Option<String>,
) -> String {
    format!("converted to {to:?}")
}

/// Put a label on an item.
#[tool(tier = "reversible", reads = "private")]
async fn add_label(
    /// The label's text.
    label: Option<String>,
) -> String {
    format!("labelled {label:?}")
}

/// Unlock the weather tool for the rest of the conversation.
#[tool(tier = "read_only")]
async fn unlock() -> ToolOutput {
    ToolOutput::text("unlocked").activating(["get_weather"])
}

/// Unlock a tool that does not exist.
#[tool(tier = "read_only")]
async fn unlock_typo() -> ToolOutput {
    ToolOutput::text("unlocked").activating(["get_wether"])
}

toolset! {
    /// Tools with two deferred ones.
    Tools = [now, archive, get_weather, convert, add_label, unlock, unlock_typo];
}

const FORMATS: [Format; 6] = Format::ALL;

/// The tool names a rendered list holds, in order.
fn names_in(list: &str, format: Format) -> Vec<String> {
    if format == Format::Prompt {
        return list
            .lines()
            .filter_map(|line| line.strip_prefix("## "))
            .map(|heading| heading.split(' ').next().unwrap_or(heading).to_owned())
            .collect();
    }
    let tools: Vec<Value> = serde_json::from_str(list).expect("a JSON array");
    tools
        .iter()
        .map(|tool| {
            let name = match (format, tool.get("type").and_then(Value::as_str)) {
                (Format::OpenAiChat, _) => &tool["function"]["name"],
                (Format::OpenAiResponses, Some("tool_search")) => return SEARCH_TOOL_NAME.into(),
                _ => &tool["name"],
            };
            name.as_str().expect("a name").to_owned()
        })
        .collect()
}

fn call(name: &str) -> ToolCall {
    ToolCall::new(format!("call_{name}"), name, "{}")
}

/// The kind of problem the gate finds with a lone call to `name`, if any.
fn problem(request: &Request<'_, Tools>, name: &str) -> Option<ProblemKind> {
    match request.gate([call(name)]) {
        Ok(_) => None,
        Err(rejected) => Some(rejected.problems()[0].kind),
    }
}

fn run(plan: toolset::plan::Plan<Tools>) -> toolset::report::Report {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(Tools::apply(&mut (), &ToolContext::default(), plan))
}

/// A random policy: each tool hidden, denied and/or deferred (or not).
fn policy_from(flags: &[(bool, bool, bool)]) -> Policy<Tools> {
    let mut policy = Policy::new(Autonomy::Reversible);
    for (&tool, &(hide, deny, defer)) in <ToolsName as ToolName>::ALL.iter().zip(flags) {
        if hide {
            policy = policy.hide(tool);
        }
        if deny {
            policy = policy.deny(tool);
        }
        if defer {
            policy = policy.defer(tool);
        }
    }
    policy
}

const UNIVERSE: [&str; 12] = [
    "now",
    "archive",
    "get_weather",
    "convert",
    "add_label",
    "unlock",
    "unlock_typo",
    "tool_search",
    "gone_tool",
    "other",
    "note",
    "memo",
];

/// The runtime tools of [`toolbox_with_note`], in the order the policy's runtime flags name
/// them.
const RUNTIME: [&str; 2] = ["note", "memo"];

/// `policy` with each runtime tool of [`RUNTIME`] hidden, denied and/or deferred (or not).
fn with_runtime_flags(mut policy: Policy<Tools>, flags: &[(bool, bool, bool)]) -> Policy<Tools> {
    for (&name, &(hide, deny, defer)) in RUNTIME.iter().zip(flags) {
        if hide {
            policy = policy.hide(name);
        }
        if deny {
            policy = policy.deny(name);
        }
        if defer {
            policy = policy.defer(name);
        }
    }
    policy
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Runtime tools included: a toolbox (or none) whose runtime tools the policy hides,
    /// denies and/or defers by name.
    #[test]
    fn what_a_request_offers_is_exactly_what_its_gate_permits_and_history_is_declared(
        flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 7),
        runtime_flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 2),
        with_toolbox in any::<bool>(),
        activated in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
        injected in proptest::collection::vec(0..7usize, 0..2),
        history in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
        format in 0..FORMATS.len(),
        hosted in any::<bool>(),
    ) {
        let toolbox = toolbox_with_note();
        let policy = policy_from(&flags);
        // Runtime names only where a toolbox joins: without one they name no tool.
        let policy = if with_toolbox { with_runtime_flags(policy, &runtime_flags) } else { policy };
        let mut activations = Activations::new();
        for index in activated {
            activations.activate(UNIVERSE[index]);
        }
        let history: Vec<&str> = history.iter().map(|&index| UNIVERSE[index]).collect();
        let format = FORMATS[format];
        let search = if hosted { ToolSearch::Hosted(Ranking::Bm25) } else { ToolSearch::Local(Ranking::Bm25) };
        let mut request = Request::new(&policy).format(format)
            .activated(&activations)
            .history(&history)
            .search(search);
        if with_toolbox {
            request = request.toolbox(&toolbox).expect("the policy names the toolbox's tools");
        }
        for index in injected {
            request = request.inject(<ToolsName as ToolName>::ALL[index]);
        }
        let offered = request.offered();
        for name in UNIVERSE {
            let kind = problem(&request, name);
            if offered.contains(&name) {
                // Arguments may still be wrong (the search needs a query), the name is not.
                prop_assert!(
                    !matches!(kind, Some(ProblemKind::UnknownTool | ProblemKind::Denied)),
                    "{name} is offered but the gate says {kind:?} ({request:?})"
                );
            } else {
                prop_assert!(
                    matches!(kind, Some(ProblemKind::UnknownTool | ProblemKind::Denied)),
                    "{name} is not offered but the gate says {kind:?} ({request:?})"
                );
            }
        }
        let declared = request.declared();
        for name in &history {
            prop_assert!(declared.iter().any(|declared| declared == name), "{name} is not declared");
        }
        // The list holds exactly the declared names, in order.
        prop_assert_eq!(names_in(&request.tool_list(), format), {
            // A hosted Responses search is the provider's `tool_search`.
            declared.clone()
        });
        // An unknown tool's message never names what is not offered.
        if let Err(rejected) = request.gate([call("no_such_tool")]) {
            let message = &rejected.problems()[0].message;
            for name in UNIVERSE {
                if !offered.contains(&name) && name != "tool_search" {
                    prop_assert!(!message.contains(&format!("\"{name}\"")) && !message.contains(&format!(" {name},")) && !message.contains(&format!(" {name}.")),
                        "{message} names {name}, which is not offered");
                }
            }
        }
    }
}

/// The formats with a tool choice naming what may be called.
const CHOICE_FORMATS: [Format; 3] = [Format::OpenAiChat, Format::OpenAiResponses, Format::Gemini];

/// The function names a rendered tool choice allows, in order (OpenAI Responses' search
/// entry, `{"type": "tool_search"}`, as [`SEARCH_TOOL_NAME`]); panics on any other shape.
fn names_in_choice(choice: &Value, format: Format) -> Vec<String> {
    let name = |value: &Value| value.as_str().expect("a name").to_owned();
    match format {
        Format::OpenAiChat if choice == "none" || choice == "auto" => Vec::new(),
        Format::OpenAiChat => {
            assert_eq!(choice["type"], "allowed_tools", "{choice}");
            let tools = choice["allowed_tools"]["tools"].as_array().expect("tools");
            assert!(!tools.is_empty(), "{choice}");
            tools
                .iter()
                .map(|tool| {
                    assert_eq!(tool["type"], "function", "{choice}");
                    name(&tool["function"]["name"])
                })
                .collect()
        }
        Format::OpenAiResponses if choice == "none" || choice == "auto" => Vec::new(),
        Format::OpenAiResponses => {
            assert_eq!(choice["type"], "allowed_tools", "{choice}");
            let tools = choice["tools"].as_array().expect("tools");
            assert!(!tools.is_empty(), "{choice}");
            tools
                .iter()
                .map(|tool| match tool["type"].as_str() {
                    Some("function") => name(&tool["name"]),
                    Some("tool_search") => SEARCH_TOOL_NAME.to_owned(),
                    other => panic!("{other:?} in {choice}"),
                })
                .collect()
        }
        Format::Gemini => {
            let config = &choice["functionCallingConfig"];
            match config["mode"].as_str() {
                Some("NONE" | "AUTO") => {
                    assert!(config.get("allowedFunctionNames").is_none(), "{choice}");
                    Vec::new()
                }
                Some("ANY" | "VALIDATED") => {
                    let names = config["allowedFunctionNames"].as_array().expect("names");
                    assert!(!names.is_empty(), "{choice}");
                    names.iter().map(name).collect()
                }
                other => panic!("mode {other:?} in {choice}"),
            }
        }
        other => panic!("{other} has no tool choice"),
    }
}

const CHOICE_MODES: [ChoiceMode; 3] = [
    ChoiceMode::Auto,
    ChoiceMode::Required,
    ChoiceMode::Unrestricted,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The tool choice names exactly what the gate permits: for random policies (the set's
    /// and the runtime tools' hidden, denied, deferred), autonomies, activations,
    /// injections, history, search modes and a toolbox or none, in every format that has a
    /// choice, for the composed list and the fixed one. A call to each name it allows is
    /// not refused as unknown or denied; a call to any other name is. Where the provider
    /// hosts the search (OpenAI Responses), the choice allows its `tool_search` too,
    /// exactly when the list has it. The fixed list declares every name the choice
    /// allows, and a fresh conversation's fixed list is its prefix: what a conversation
    /// activates never changes its bytes. Formats without a choice say so.
    #[test]
    fn the_tool_choice_names_exactly_what_the_gate_permits(
        flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 7),
        runtime_flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 2),
        with_toolbox in any::<bool>(),
        autonomy in 0..AUTONOMIES.len(),
        activated in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
        injected in proptest::collection::vec(0..7usize, 0..2),
        history in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
        format in 0..FORMATS.len(),
        hosted in any::<bool>(),
        mode in 0..CHOICE_MODES.len(),
    ) {
        let toolbox = toolbox_with_note();
        let policy = policy_from(&flags).limit_autonomy(AUTONOMIES[autonomy]);
        let policy = if with_toolbox { with_runtime_flags(policy, &runtime_flags) } else { policy };
        let mut activations = Activations::new();
        for index in activated {
            activations.activate(UNIVERSE[index]);
        }
        let history: Vec<&str> = history.iter().map(|&index| UNIVERSE[index]).collect();
        let format = FORMATS[format];
        let mode = CHOICE_MODES[mode];
        let search = if hosted { ToolSearch::Hosted(Ranking::Bm25) } else { ToolSearch::Local(Ranking::Bm25) };
        let fresh = || {
            let request = Request::new(&policy).format(format).search(search).choice_mode(mode);
            if with_toolbox {
                request.toolbox(&toolbox).expect("the policy names the toolbox's tools")
            } else {
                request
            }
        };
        let mut request = fresh().activated(&activations).history(&history);
        for index in injected {
            request = request.inject(<ToolsName as ToolName>::ALL[index]);
        }
        if !CHOICE_FORMATS.contains(&format) {
            prop_assert_eq!(request.tool_choice(), Err(ToolChoiceError::Unsupported(format)));
            prop_assert_eq!(request.fixed_tools(), Err(ToolChoiceError::Unsupported(format)));
            return Ok(());
        }
        let offered = request.offered();
        // The provider's hosted search, which no call of the host's gate ever reaches.
        let hosted_search = hosted && format == Format::OpenAiResponses;
        let lists_hosted_search = hosted_search
            && serde_json::from_str::<Vec<Value>>(&request.tool_list())
                .expect("a JSON array")
                .iter()
                .any(|tool| tool["type"] == "tool_search");
        let permitted = |names: Vec<String>| -> Vec<String> {
            names.into_iter().filter(|name| !(hosted_search && name == SEARCH_TOOL_NAME)).collect()
        };
        let choice = request.tool_choice().expect("the format has a choice");
        let composed = names_in_choice(&choice, format);
        if mode == ChoiceMode::Unrestricted {
            // No names sent; nothing permitted sends "none" all the same.
            prop_assert!(composed.is_empty(), "{choice}");
            prop_assert!(request.fixed_tools() == Err(ToolChoiceError::FixedNeedsNames(format)));
            return Ok(());
        }
        prop_assert_eq!(
            composed.iter().any(|name| name == SEARCH_TOOL_NAME) && hosted_search,
            lists_hosted_search,
            "{}", choice
        );
        // In the composed list's order, exactly the offered names.
        prop_assert_eq!(permitted(composed), offered.iter().map(|name| name.to_string()).collect::<Vec<_>>());
        let fixed = request.fixed_tools().expect("Auto and Required name the tools");
        let fixed_names = names_in_choice(&fixed.tool_choice, format);
        let declared = names_in(&fixed.tools, format);
        for name in &fixed_names {
            prop_assert!(declared.contains(name), "{name} is allowed, not declared: {}", fixed.tools);
        }
        let fixed_names = permitted(fixed_names);
        for name in UNIVERSE {
            let kind = problem(&request, name);
            if fixed_names.iter().any(|allowed| allowed == name) {
                prop_assert!(
                    !matches!(kind, Some(ProblemKind::UnknownTool | ProblemKind::Denied)),
                    "{name} is allowed but the gate says {kind:?} ({request:?})"
                );
            } else {
                prop_assert!(
                    matches!(kind, Some(ProblemKind::UnknownTool | ProblemKind::Denied)),
                    "{name} is not allowed but the gate says {kind:?} ({request:?})"
                );
            }
        }
        let mut sorted = fixed_names.clone();
        sorted.sort();
        let mut offered_sorted: Vec<String> = offered.iter().map(|name| name.to_string()).collect();
        offered_sorted.sort();
        prop_assert_eq!(sorted, offered_sorted);
        // What the conversation activated, injected or named only appends to a fresh one's.
        let start = fresh().fixed_tools().expect("a choice").tools;
        prop_assert!(
            fixed.tools.starts_with(start.strip_suffix(']').unwrap_or(&start)),
            "the fixed list changed:\n{start}\n{}", fixed.tools
        );
    }
}

/// A toolbox of `Tools` with two runtime tools: `note`, taking a required string `text`,
/// and `memo`, taking nothing.
fn toolbox_with_note() -> Toolbox<Tools> {
    Tools::toolbox()
        .with_all([
            DynamicTool::new("note", Tier::Reversible, "Write a note down.")
                .sends_outside()
                .input_schema(serde_json::json!({
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                    "additionalProperties": false
                }))
                .handler(|_args: Value, _ctx: &ToolContext| async move { "noted" }),
            DynamicTool::new("memo", Tier::ReadOnly, "Read the memo.")
                .reads_untrusted()
                .handler(|_args: Value, _ctx: &ToolContext| async move { "the memo" }),
        ])
        .expect("valid runtime tools")
}

/// Argument texts of every kind the gate tells apart: fitting, ill-typed, unknown keys,
/// not an object, not JSON, a search query.
const ARGUMENTS: [&str; 8] = [
    "{}",
    r#"{"id":3}"#,
    r#"{"id":"three"}"#,
    r#"{"text":"milk"}"#,
    r#"{"query":"weather"}"#,
    r#"{"nope":1}"#,
    "[1]",
    "{not json",
];

const CEILINGS: [FromCode; 4] = [
    FromCode::Nothing,
    FromCode::ReadOnly,
    FromCode::Reversible,
    FromCode::ExternalReversible,
];

/// `policy` with code's ceiling `ceiling` and each tool of the set allowed from code
/// and/or kept direct-only (or not).
fn with_code_flags(
    mut policy: Policy<Tools>,
    ceiling: FromCode,
    flags: &[(bool, bool)],
) -> Policy<Tools> {
    policy = policy.from_code(ceiling);
    for (&tool, &(allow, direct_only)) in <ToolsName as ToolName>::ALL.iter().zip(flags) {
        if allow {
            policy = policy
                .allow_from_code(tool)
                .expect("no tool of the set is irreversible");
        }
        if direct_only {
            policy = policy.direct_only(tool);
        }
    }
    policy
}

/// `policy` with each runtime tool of [`RUNTIME`] allowed from code and/or kept
/// direct-only (or not).
fn with_runtime_code_flags(mut policy: Policy<Tools>, flags: &[(bool, bool)]) -> Policy<Tools> {
    for (&name, &(allow, direct_only)) in RUNTIME.iter().zip(flags) {
        if allow {
            policy = policy
                .allow_from_code(name)
                .expect("a runtime tool's tier is checked when the toolbox joins");
        }
        if direct_only {
            policy = policy.direct_only(name);
        }
    }
    policy
}

const AUTONOMIES: [Autonomy; 4] = [
    Autonomy::Off,
    Autonomy::ReadOnly,
    Autonomy::Reversible,
    Autonomy::ExternalReversible,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `Request::check` is the gate's verdict on one call, whatever the request: random
    /// policies (hidden, denied, deferred), autonomies, activations, injections, history,
    /// formats, search modes, a toolbox (with its runtime tool `note`) or none, and calls to
    /// every kind of name (compiled, runtime, the search, hidden, denied, deferred, unknown)
    /// with every kind of arguments and id, made by the model or by its code (under random
    /// rules of what code may call, with code execution or without), in runs that have read
    /// private data, untrusted content, both or neither (the trifecta rule, escalating or
    /// denying, relaxed for a tool or not). And the gate's verdict is the same whatever
    /// format the request renders, or none: gating needs no format.
    #[test]
    fn checking_one_call_gives_exactly_the_verdict_of_gating_it_alone(
        flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 7),
        autonomy in 0..AUTONOMIES.len(),
        activated in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
        injected in proptest::collection::vec(0..7usize, 0..2),
        history in proptest::collection::vec(0..UNIVERSE.len(), 0..3),
        format in 0..FORMATS.len(),
        hosted in any::<bool>(),
        with_toolbox in any::<bool>(),
        name in 0..UNIVERSE.len() + 1,
        arguments in 0..ARGUMENTS.len(),
        empty_id in any::<bool>(),
        from_code in any::<bool>(),
        code_execution in any::<bool>(),
        ceiling in 0..CEILINGS.len(),
        code_flags in proptest::collection::vec((any::<bool>(), any::<bool>()), 7),
        runtime_code_flags in proptest::collection::vec((any::<bool>(), any::<bool>()), 2),
        read_private in any::<bool>(),
        read_untrusted in any::<bool>(),
        deny_sending in any::<bool>(),
        allow_archive in any::<bool>(),
        allow_note in any::<bool>(),
    ) {
        let policy = policy_from(&flags).limit_autonomy(AUTONOMIES[autonomy]);
        let policy = with_code_flags(policy, CEILINGS[ceiling], &code_flags);
        let policy = if deny_sending { policy.trifecta(Trifecta::Deny) } else { policy };
        let policy = if allow_archive { policy.allow_sending(ToolsName::Archive) } else { policy };
        let policy = if allow_note && with_toolbox { policy.allow_sending("note") } else { policy };
        let mut exposure = Exposure::new();
        if read_private {
            exposure.read("add_label", Labels::NONE.reading_private());
        }
        if read_untrusted {
            exposure.read("memo", Labels::NONE.reading_untrusted());
        }
        // Runtime names only where a toolbox joins: without one they name no tool.
        let policy = if with_toolbox {
            with_runtime_code_flags(policy, &runtime_code_flags)
        } else {
            policy
        };
        let mut activations = Activations::new();
        for index in activated {
            activations.activate(UNIVERSE[index]);
        }
        let history: Vec<&str> = history.iter().map(|&index| UNIVERSE[index]).collect();
        let search = if hosted { ToolSearch::Hosted(Ranking::Bm25) } else { ToolSearch::Local(Ranking::Bm25) };
        let toolbox = toolbox_with_note();
        let build = |format: Option<Format>| {
            let mut request = Request::new(&policy)
                .activated(&activations)
                .history(&history)
                .search(search)
                .code_execution(code_execution)
                .exposure(&exposure);
            if let Some(format) = format {
                request = request.format(format);
            }
            if with_toolbox {
                request = request.toolbox(&toolbox).expect("no unknown runtime name");
            }
            for &index in &injected {
                request = request.inject(<ToolsName as ToolName>::ALL[index]);
            }
            request
        };
        let request = build(Some(FORMATS[format]));
        let name = UNIVERSE.get(name).copied().unwrap_or("note");
        let id = if empty_id { "" } else { "call_1" };
        let mut call = ToolCall::new(id, name, ARGUMENTS[arguments]);
        if from_code {
            call = call.with_caller(Caller::code("code_execution_20260120", "srvtoolu_1"));
        }
        let verdict = |request: &Request<'_, Tools>| {
            request
                .gate([call.clone()])
                .map(|plan| (plan.approved().count(), plan.proposals().len()))
                .map_err(|rejected| rejected.problems().to_vec())
        };
        let gated = verdict(&request);
        prop_assert_eq!(
            request.check(&call),
            gated.clone().map(|_| ()),
            "{:?} under {:?}",
            call,
            request
        );
        // No format in gating: the request of any format, or of none, gives one verdict.
        prop_assert_eq!(verdict(&build(None)), gated.clone(), "{:?} with no format", call);
        for other in FORMATS {
            prop_assert_eq!(verdict(&build(Some(other))), gated.clone(), "{:?} in {:?}", call, other);
        }
    }
}

#[test]
fn activating_only_appends_and_identical_inputs_give_identical_bytes() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    for format in FORMATS {
        let before = Request::new(&policy).format(format).tool_list();
        assert_eq!(
            before,
            Request::new(&policy).format(format).tool_list(),
            "{format}"
        );
        let mut activations = Activations::new();
        activations.activate("convert");
        let one = Request::new(&policy)
            .format(format)
            .activated(&activations)
            .tool_list();
        activations.activate("get_weather");
        let two = Request::new(&policy)
            .format(format)
            .activated(&activations)
            .tool_list();
        let history = Request::new(&policy)
            .format(format)
            .activated(&activations)
            .history(["gone_tool"])
            .tool_list();
        let open = |list: &str| list.strip_suffix(']').unwrap_or(list).to_owned();
        for (shorter, longer) in [(&before, &one), (&one, &two), (&two, &history)] {
            assert!(
                longer.starts_with(&open(shorter)),
                "{format}: the list before the new tools changed:\n{shorter}\n{longer}"
            );
        }
        assert_eq!(
            two,
            Request::new(&policy)
                .format(format)
                .activated(&activations)
                .tool_list()
        );
        if matches!(format, Format::Anthropic | Format::OpenAiResponses) {
            // The native formats list deferred tools already: activating changes nothing.
            assert_eq!(before, two, "{format}");
        } else {
            assert_ne!(before, one, "{format}");
        }
    }
}

#[test]
fn a_request_list_is_the_cached_default_list_when_nothing_is_deferred() {
    toolset! { Plain = [now, archive, add_label]; }
    let policy = Policy::<Plain>::new(Autonomy::Off);
    for format in FORMATS {
        assert_eq!(
            Request::new(&policy).format(format).tool_list(),
            tool_list::<Plain>(format, Order::Declared),
            "{format}"
        );
    }
}

#[test]
fn what_a_request_decided_is_decided_again_when_it_is_built_further() {
    // The gate's decision is kept once made (every call of a program, every `check` of a
    // stream, share it); building the request further starts it afresh.
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    let request = Request::new(&policy);
    // A name outside the set makes the request decide what it permits.
    assert_eq!(
        problem(&request, "no_such_tool"),
        Some(ProblemKind::UnknownTool)
    );
    assert_eq!(
        problem(&request, "get_weather"),
        Some(ProblemKind::UnknownTool)
    );
    let mut activations = Activations::new();
    activations.activate("get_weather");
    let activated = request.activated(&activations);
    assert_eq!(
        problem(&activated, "no_such_tool"),
        Some(ProblemKind::UnknownTool)
    );
    assert_eq!(
        problem(&activated, "get_weather"),
        None,
        "activated: permitted"
    );
    let rejected = activated.gate([call("no_such_tool")]).expect_err("unknown");
    assert!(
        rejected.problems()[0].message.contains("get_weather"),
        "the unknown-tool answer lists what is permitted now: {}",
        rejected.problems()[0].message
    );
    let injected = Request::new(&policy).inject(ToolsName::Convert);
    assert_eq!(
        problem(&injected, "no_such_tool"),
        Some(ProblemKind::UnknownTool)
    );
    let both = injected.activated(&activations);
    assert!(
        both.gate([call("no_such_tool")])
            .expect_err("unknown")
            .problems()[0]
            .message
            .contains("get_weather")
    );
}

#[test]
fn deferred_tools_are_unknown_until_a_search_finds_them_then_offered_next() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    let mut activations = Activations::new();
    let request = Request::new(&policy)
        .format(Format::OpenAiChat)
        .activated(&activations);
    let rejected = request.gate([call("get_weather")]).expect_err("deferred");
    let message = &rejected.problems()[0].message;
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    assert!(
        !message.contains("convert") && message.contains("tool_search"),
        "{message}"
    );

    let search = ToolCall::new("s1", SEARCH_TOOL_NAME, r#"{"query":"weather forecast"}"#);
    let report = run(request.gate([search]).expect("a search passes"));
    let (_, outcome) = report.outcomes().next().expect("an outcome");
    let Outcome::Done(output) = outcome else {
        panic!("the search is done: {outcome:?}")
    };
    assert_eq!(output.activates(), ["get_weather"]);
    assert!(output.text_content().contains("get_weather"), "{output:?}");
    assert_eq!(activations.record(&report), 1);

    let next = Request::new(&policy)
        .format(Format::OpenAiChat)
        .activated(&activations);
    assert_eq!(
        next.offered(),
        [
            "now",
            "archive",
            "add_label",
            "unlock",
            "unlock_typo",
            "tool_search",
            "get_weather"
        ]
    );
    assert!(next.gate([call("get_weather")]).is_ok());
    assert!(next.gate([call("convert")]).is_err());
}

#[test]
fn a_bad_regex_fails_the_search_call_only_with_a_message_to_act_on() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    let request = Request::new(&policy)
        .format(Format::Gemini)
        .search(ToolSearch::Local(Ranking::Regex));
    let plan = request
        .gate([
            ToolCall::new("s1", SEARCH_TOOL_NAME, r#"{"pattern":"(weather"}"#),
            call("now"),
        ])
        .expect("the search's arguments are well formed");
    let report = run(plan);
    let outcomes: Vec<&Outcome> = report.outcomes().map(|(_, outcome)| outcome).collect();
    let Outcome::Done(output) = outcomes[0] else {
        panic!("{:?}", outcomes[0])
    };
    assert!(output.is_error() && output.activates().is_empty());
    assert!(
        output.text_content().contains("Send a simpler one"),
        "{output:?}"
    );
    assert!(outcomes[1].is_done());
    let found = run(request
        .gate([ToolCall::new(
            "s2",
            SEARCH_TOOL_NAME,
            r#"{"pattern":"currenc(y|ies)"}"#,
        )])
        .expect("valid"));
    let (_, Outcome::Done(output)) = found.outcomes().next().expect("one") else {
        panic!("done")
    };
    assert_eq!(output.activates(), ["convert"]);
}

#[test]
fn a_tool_declared_only_for_history_is_refused() {
    // Denied, it is known to the model: declared for the history, refused when called. (A
    // hidden one is a name no tool has: `tests/tests/hidden.rs`.)
    let policy = Policy::<Tools>::new(Autonomy::Reversible).deny(ToolsName::Archive);
    let request = Request::new(&policy)
        .format(Format::Anthropic)
        .history(["archive", "gone_tool"]);
    assert!(request.declared().contains(&"archive".to_owned()));
    assert!(!request.offered().contains(&"archive"));
    let rejected = request.gate([call("archive")]).expect_err("history only");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::Denied);
    let rejected = request.gate([call("gone_tool")]).expect_err("a stand-in");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    let list: Vec<Value> = serde_json::from_str(&request.tool_list()).expect("JSON");
    let stand_in = list.last().expect("the stand-in last");
    assert_eq!(stand_in["name"], "gone_tool");
    assert_eq!(stand_in["input_schema"]["type"], "object");
}

#[test]
fn an_injected_tool_is_offered_even_when_hidden_but_never_when_denied() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible)
        .hide(ToolsName::Archive)
        .deny(ToolsName::AddLabel);
    let request = Request::new(&policy)
        .format(Format::Mcp)
        .inject(ToolsName::Archive)
        .inject(ToolsName::AddLabel);
    assert!(request.gate([call("archive")]).is_ok());
    assert_eq!(problem(&request, "add_label"), Some(ProblemKind::Denied));
    assert_eq!(request.offered().last(), Some(&"archive"));
}

#[test]
fn any_output_may_activate_a_tool_and_an_unknown_name_fails_the_call() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    let request = Request::new(&policy).format(Format::Prompt);
    let report = run(request
        .gate([call("unlock"), call("unlock_typo")])
        .expect("valid"));
    let outcomes: Vec<&Outcome> = report.outcomes().map(|(_, outcome)| outcome).collect();
    assert!(outcomes[0].is_done());
    let Outcome::Failed { message } = outcomes[1] else {
        panic!("{:?}", outcomes[1])
    };
    assert!(
        message.contains("\"get_wether\"") && message.contains("get_weather"),
        "{message}"
    );
    let mut activations = Activations::new();
    assert_eq!(activations.record(&report), 1);
    assert_eq!(activations.names(), ["get_weather"]);
    let round_trip: Activations =
        serde_json::from_str(&serde_json::to_string(&activations).expect("serializes"))
            .expect("parses");
    assert_eq!(round_trip, activations);
}

#[test]
fn the_default_gate_refuses_deferred_tools_and_does_not_name_them() {
    let rejected = Tools::gate([call("convert")], Autonomy::Reversible).expect_err("deferred");
    let message = &rejected.problems()[0].message;
    assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
    assert!(!message.contains("get_weather"), "{message}");
}

mod fixtures {
    //! Tool search exchanges with Anthropic and OpenAI Responses, hosted and client-side:
    //! the provider's message is parsed, the calls gated and run, and the answer compared
    //! with the one the provider expects.

    use super::*;
    use toolset::consumer::{anthropic, openai_responses};

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/fixtures/tool_search/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("the fixture exists");
        serde_json::from_str(&text).expect("the fixture is JSON")
    }

    /// What the list of `request` must say about search and deferral, per fixture.
    fn check_list(list: &str, expected_search: &Value) {
        let tools: Vec<Value> = serde_json::from_str(list).expect("JSON");
        let search = tools
            .iter()
            .find(|tool| {
                tool["type"] == "tool_search"
                    || tool["name"] == SEARCH_TOOL_NAME
                    || tool["name"]
                        .as_str()
                        .is_some_and(|name| name.starts_with("tool_search_tool_"))
            })
            .expect("the list has a search tool");
        for (key, value) in expected_search.as_object().expect("an object") {
            assert_eq!(&search[key], value, "search entry {key}: {search}");
        }
        for name in ["get_weather", "convert"] {
            let tool = tools
                .iter()
                .find(|tool| tool["name"] == name)
                .expect("deferred tools are listed");
            assert_eq!(tool["defer_loading"], true, "{tool}");
        }
    }

    #[test]
    fn anthropic_hosted_search_is_skipped_recorded_and_its_find_runs() {
        let exchange = fixture("anthropic_hosted");
        let policy = Policy::<Tools>::new(Autonomy::Reversible);
        let search = ToolSearch::Hosted(Ranking::Regex);
        check_list(
            &Request::new(&policy)
                .format(Format::Anthropic)
                .search(search)
                .tool_list(),
            &exchange["search_tool"],
        );
        let response = &exchange["response"];
        let calls = ToolCall::from_anthropic(response).expect("parses");
        assert_eq!(calls.len(), 1, "the server tool blocks are skipped");
        // Before the host records what the hosted search loaded, the tool is not permitted.
        let mut activations = Activations::new();
        let before = Request::new(&policy)
            .format(Format::Anthropic)
            .search(search)
            .activated(&activations);
        assert!(before.gate(calls.clone()).is_err());
        assert_eq!(activations.record_hosted(response), ["get_weather"]);
        let request = Request::new(&policy)
            .format(Format::Anthropic)
            .search(search)
            .activated(&activations);
        let report = run(request.gate(calls).expect("loaded, so permitted"));
        assert_eq!(anthropic::results(&report.results()), exchange["answer"]);
    }

    #[test]
    fn anthropic_client_search_is_answered_with_tool_references() {
        let exchange = fixture("anthropic_client");
        let policy = Policy::<Tools>::new(Autonomy::Reversible);
        let request = Request::new(&policy).format(Format::Anthropic);
        check_list(&request.tool_list(), &exchange["search_tool"]);
        let calls = ToolCall::from_anthropic(&exchange["response"]).expect("parses");
        let report = run(request.gate(calls).expect("a search call"));
        assert_eq!(anthropic::results(&report.results()), exchange["answer"]);
        let mut activations = Activations::new();
        activations.record(&report);
        let next = Request::new(&policy)
            .format(Format::Anthropic)
            .activated(&activations);
        let calls = ToolCall::from_anthropic(&exchange["next_response"]).expect("parses");
        assert!(next.gate(calls).is_ok());
    }

    #[test]
    fn responses_hosted_search_is_skipped_recorded_and_its_find_runs() {
        let exchange = fixture("responses_hosted");
        let policy = Policy::<Tools>::new(Autonomy::Reversible);
        let search = ToolSearch::Hosted(Ranking::Bm25);
        check_list(
            &Request::new(&policy)
                .format(Format::OpenAiResponses)
                .search(search)
                .tool_list(),
            &exchange["search_tool"],
        );
        let response = &exchange["response"];
        let calls = ToolCall::from_openai_responses(response).expect("parses");
        assert_eq!(calls.len(), 1, "the hosted search items are skipped");
        let mut activations = Activations::new();
        assert_eq!(activations.record_hosted(response), ["convert"]);
        let request = Request::new(&policy)
            .format(Format::OpenAiResponses)
            .search(search)
            .activated(&activations);
        let report = run(request.gate(calls).expect("loaded, so permitted"));
        assert_eq!(
            openai_responses::results(&report.results()),
            exchange["answer"]
        );
    }

    #[test]
    fn responses_client_search_is_answered_with_a_tool_search_output() {
        let exchange = fixture("responses_client");
        let policy = Policy::<Tools>::new(Autonomy::Reversible);
        let request = Request::new(&policy).format(Format::OpenAiResponses);
        check_list(&request.tool_list(), &exchange["search_tool"]);
        let calls = ToolCall::from_openai_responses(&exchange["response"]).expect("parses");
        let report = run(request.gate(calls).expect("a search call"));
        let answer = openai_responses::results(&report.results());
        assert_eq!(answer, exchange["answer"]);
        // The loaded definition is the tool's own Responses rendering.
        assert_eq!(
            answer[0]["tools"][0],
            toolset::consumer::openai_responses::tool(Tools::spec("convert").expect("a tool"))
        );
    }
}

#[test]
fn at_autonomy_off_the_local_search_is_not_offered_and_never_runs_at_the_gate() {
    let policy = Tools::policy(Autonomy::Off);
    for format in FORMATS {
        for ranking in [Ranking::Bm25, Ranking::Regex] {
            let request = Request::new(&policy)
                .format(format)
                .search(ToolSearch::Local(ranking));
            let declared = request.declared();
            assert!(
                !declared.iter().any(|name| name == SEARCH_TOOL_NAME),
                "{format:?}: {declared:?}"
            );
            // No search could load them: the deferred tools stay out of every list.
            assert!(
                !declared.iter().any(|name| name == "get_weather"),
                "{format:?}: {declared:?}"
            );
            let rejected = request
                .gate([ToolCall::new(
                    "s1",
                    SEARCH_TOOL_NAME,
                    r#"{"query": "weather", "pattern": "weather"}"#,
                )])
                .expect_err("no search runs at Off");
            assert_eq!(rejected.problems()[0].kind, ProblemKind::UnknownTool);
            // An activated deferred tool is still offered, its call a proposal.
            let mut activations = Activations::new();
            activations.activate("get_weather");
            let plan = Request::new(&policy)
                .format(format)
                .search(ToolSearch::Local(ranking))
                .activated(&activations)
                .gate([ToolCall::new("w1", "get_weather", "{}")])
                .expect("an activated tool is offered");
            assert_eq!(plan.approved().count(), 0);
            assert_eq!(plan.proposals().len(), 1);
        }
    }
    // A hosted search runs at the provider: offered at Off too.
    let hosted = Request::new(&policy)
        .format(Format::Anthropic)
        .search(ToolSearch::Hosted(Ranking::Bm25));
    assert!(
        hosted
            .declared()
            .iter()
            .any(|name| name == "tool_search_tool_bm25")
    );
}

/// Five requests of one conversation with fixed lists, a search activating a tool between
/// them: the list's bytes never change, the tool choice follows the gate, and a listed
/// tool the gate does not permit yet is refused as unknown.
#[test]
fn a_fixed_list_keeps_its_bytes_for_five_requests_while_the_choice_follows_the_gate() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    for format in CHOICE_FORMATS {
        for mode in [ChoiceMode::Auto, ChoiceMode::Required] {
            let mut activations = Activations::new();
            let mut history: Vec<String> = Vec::new();
            let mut lists = Vec::new();
            let mut choices = Vec::new();
            // What the model calls in each request: a tool the choice allows then.
            let turns: [(&str, &str); 5] = [
                ("tool_search", r#"{"query":"weather forecast city"}"#),
                ("get_weather", r#"{"city":"Lisbon"}"#),
                ("tool_search", r#"{"query":"convert currencies"}"#),
                ("convert", r#"{"to":"EUR"}"#),
                ("now", "{}"),
            ];
            for (turn, (name, arguments)) in turns.into_iter().enumerate() {
                let request = Request::new(&policy)
                    .format(format)
                    .choice_mode(mode)
                    .activated(&activations)
                    .history(&history);
                let fixed = request.fixed_tools().expect("the format has a choice");
                let allowed = names_in_choice(&fixed.tool_choice, format);
                let offered: Vec<String> =
                    request.offered().iter().map(|n| n.to_string()).collect();
                let mut sorted = allowed.clone();
                sorted.sort();
                let mut offered_sorted = offered.clone();
                offered_sorted.sort();
                assert_eq!(sorted, offered_sorted, "{format} turn {turn}");
                // Every deferred tool is listed from the first request on; only the choice
                // says which the gate permits.
                let declared = names_in(&fixed.tools, format);
                for tool in ["get_weather", "convert"] {
                    assert!(declared.iter().any(|d| d == tool), "{format}: {declared:?}");
                }
                if turn == 0 {
                    assert!(!allowed.iter().any(|a| a == "get_weather"), "{allowed:?}");
                    let kind = problem(&request, "get_weather");
                    assert_eq!(kind, Some(ProblemKind::UnknownTool), "{format}");
                }
                assert!(
                    allowed.iter().any(|a| a == name),
                    "{format} turn {turn}: {name} not in {allowed:?}"
                );
                let plan = request
                    .gate([ToolCall::new(format!("c{turn}"), name, arguments)])
                    .expect("the model calls what the choice allows");
                activations.record(&run(plan));
                history.push(name.to_owned());
                lists.push(fixed.tools);
                choices.push(fixed.tool_choice);
            }
            for (turn, list) in lists.iter().enumerate() {
                assert_eq!(list, &lists[0], "{format}: request {turn}'s list changed");
            }
            // The choice changed twice: after each search.
            assert_ne!(
                choices[0], choices[1],
                "{format}: the first search activated nothing"
            );
            assert_eq!(choices[1], choices[2], "{format}");
            assert_ne!(
                choices[2], choices[3],
                "{format}: the second search activated nothing"
            );
            assert_eq!(choices[3], choices[4], "{format}");
            assert_eq!(activations.names(), ["get_weather", "convert"]);
        }
    }
}

/// The same five requests for Anthropic, whose list is kept fixed by mid-conversation tool
/// changes: the list's bytes never change, each deferred tool is declared
/// `defer_loading: true`, and the `tool_addition` blocks say exactly when the gate comes to
/// permit each: the model's availability (the list's non-deferred tools, changed by every
/// block sent) equals what the gate permits at every request.
#[test]
fn an_anthropic_fixed_list_keeps_its_bytes_while_tool_changes_follow_the_gate() {
    let policy = Policy::<Tools>::new(Autonomy::Reversible);
    let mut activations = Activations::new();
    let mut announced = Announced::default();
    let mut model_may_call: Vec<String> = Vec::new();
    let mut lists = Vec::new();
    let mut blocks_sent = Vec::new();
    let turns: [(&str, &str); 5] = [
        ("tool_search", r#"{"query":"weather forecast city"}"#),
        ("get_weather", r#"{"city":"Lisbon"}"#),
        ("tool_search", r#"{"query":"convert currencies"}"#),
        ("convert", r#"{"to":"EUR"}"#),
        ("now", "{}"),
    ];
    for (turn, (name, arguments)) in turns.into_iter().enumerate() {
        let request = Request::new(&policy)
            .format(Format::Anthropic)
            .activated(&activations);
        let changes = request
            .tool_changes(&mut announced)
            .expect("Anthropic has tool changes");
        let tools: Vec<Value> = serde_json::from_str(&changes.tools).expect("a JSON array");
        if turn == 0 {
            // The model starts with what the list offers without a block.
            model_may_call = tools
                .iter()
                .filter(|tool| tool.get("defer_loading") != Some(&Value::Bool(true)))
                .map(|tool| tool["name"].as_str().expect("a name").to_owned())
                .collect();
            for deferred in ["get_weather", "convert"] {
                let tool = tools
                    .iter()
                    .find(|tool| tool["name"] == deferred)
                    .expect("every deferred tool is declared from the first request");
                assert_eq!(tool["defer_loading"], Value::Bool(true), "{tool}");
            }
        }
        for block in &changes.blocks {
            let tool = block["tool"]["name"].as_str().expect("a name").to_owned();
            assert_eq!(block["tool"]["type"], "tool_reference", "{block}");
            match block["type"].as_str() {
                Some("tool_addition") => model_may_call.push(tool),
                Some("tool_removal") => model_may_call.retain(|known| *known != tool),
                other => panic!("not a tool change: {other:?}"),
            }
        }
        let mut now: Vec<String> = model_may_call.clone();
        now.sort();
        let mut offered: Vec<String> = request.offered().iter().map(|n| n.to_string()).collect();
        offered.sort();
        assert_eq!(
            now, offered,
            "turn {turn}: the model's tools are the gate's"
        );
        if turn == 0 {
            assert_eq!(
                problem(&request, "get_weather"),
                Some(ProblemKind::UnknownTool)
            );
        }
        let plan = request
            .gate([ToolCall::new(format!("c{turn}"), name, arguments)])
            .expect("the model calls what the blocks made available");
        activations.record(&run(plan));
        lists.push(changes.tools);
        blocks_sent.push(changes.blocks);
    }
    for (turn, list) in lists.iter().enumerate() {
        assert_eq!(list, &lists[0], "request {turn}'s list changed");
    }
    let added = |turn: usize| -> Vec<&str> {
        blocks_sent[turn]
            .iter()
            .filter_map(|block| block["tool"]["name"].as_str())
            .collect()
    };
    assert_eq!(added(0), Vec::<&str>::new());
    assert_eq!(added(1), ["get_weather"]);
    assert_eq!(added(2), Vec::<&str>::new());
    assert_eq!(added(3), ["convert"]);
    assert_eq!(added(4), Vec::<&str>::new());
    // Elsewhere: a choice, not changes; and never with the hosted search.
    for format in [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Gemini,
        Format::Mcp,
    ] {
        assert_eq!(
            Request::new(&policy)
                .format(format)
                .tool_changes(&mut Announced::default()),
            Err(ToolChoiceError::NoToolChanges(format))
        );
    }
    assert_eq!(
        Request::new(&policy)
            .format(Format::Anthropic)
            .search(ToolSearch::Hosted(Ranking::Bm25))
            .tool_changes(&mut Announced::default()),
        Err(ToolChoiceError::HostedSearch(Format::Anthropic))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// For random policies (runtime tools included), toolboxes, autonomies, injections,
    /// histories and activations arriving one by one, Anthropic's tool changes keep the
    /// model's tools equal to the gate's at every request: the list's non-deferred tools,
    /// changed by every block sent so far, are exactly `offered()`; a listed tool the
    /// model may not call is refused by the gate; and the list's bytes never change.
    #[test]
    fn anthropic_tool_changes_keep_the_model_s_tools_equal_to_the_gate_s(
        flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 7),
        runtime_flags in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 2),
        with_toolbox in any::<bool>(),
        autonomy in 0..AUTONOMIES.len(),
        activations_in_turn in proptest::collection::vec(0..UNIVERSE.len(), 0..5),
        injected in proptest::collection::vec(0..7usize, 0..2),
        history in proptest::collection::vec(0..UNIVERSE.len(), 0..4),
    ) {
        let toolbox = toolbox_with_note();
        let policy = policy_from(&flags).limit_autonomy(AUTONOMIES[autonomy]);
        let policy = if with_toolbox { with_runtime_flags(policy, &runtime_flags) } else { policy };
        let history: Vec<&str> = history.iter().map(|&index| UNIVERSE[index]).collect();
        let mut activations = Activations::new();
        let mut announced = Announced::default();
        let mut model_may_call: Vec<String> = Vec::new();
        let mut first_list: Option<String> = None;
        // One request before any activation, then one after each.
        for turn in 0..=activations_in_turn.len() {
            if turn > 0 {
                activations.activate(UNIVERSE[activations_in_turn[turn - 1]]);
            }
            let request = Request::new(&policy).format(Format::Anthropic);
            let request = if with_toolbox {
                request.toolbox(&toolbox).expect("the policy names the toolbox's tools")
            } else {
                request
            };
            let mut request = request.activated(&activations).history(&history);
            for &index in &injected {
                request = request.inject(<ToolsName as ToolName>::ALL[index]);
            }
            let changes = request.tool_changes(&mut announced).expect("Anthropic, local search");
            let tools: Vec<Value> = serde_json::from_str(&changes.tools).expect("a JSON array");
            match &first_list {
                None => {
                    model_may_call = tools
                        .iter()
                        .filter(|tool| tool.get("defer_loading") != Some(&Value::Bool(true)))
                        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
                        .collect();
                    first_list = Some(changes.tools.clone());
                }
                Some(first) => prop_assert_eq!(first, &changes.tools, "the list changed"),
            }
            for block in &changes.blocks {
                let tool = block["tool"]["name"].as_str().unwrap_or_default().to_owned();
                match block["type"].as_str() {
                    Some("tool_addition") => {
                        prop_assert!(!model_may_call.contains(&tool), "{tool} added twice");
                        prop_assert!(
                            tools.iter().any(|listed| listed["name"] == tool.as_str()),
                            "{tool} is added but not declared"
                        );
                        model_may_call.push(tool);
                    }
                    Some("tool_removal") => {
                        prop_assert!(model_may_call.contains(&tool), "{tool} removed unannounced");
                        model_may_call.retain(|known| *known != tool);
                    }
                    other => prop_assert!(false, "not a tool change: {other:?}"),
                }
            }
            let mut now = model_may_call.clone();
            now.sort();
            let mut offered: Vec<String> = request.offered().iter().map(|n| n.to_string()).collect();
            offered.sort();
            prop_assert_eq!(&now, &offered);
            for listed in &tools {
                let name = listed["name"].as_str().unwrap_or_default();
                if !now.iter().any(|known| known == name) {
                    let kind = problem(&request, name);
                    prop_assert!(
                        matches!(kind, Some(ProblemKind::UnknownTool | ProblemKind::Denied)),
                        "{name} is listed, not available, and the gate says {kind:?}"
                    );
                }
            }
        }
    }
}
