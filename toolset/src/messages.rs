//! Every sentence the model reads, in one place: from the run-time pipeline and from the
//! MCP server's tool results.
//!
//! The gate, verify, plan, approval, apply and outcome stages, and the MCP server, never
//! write model-facing text themselves: they call these functions. (What the MCP server
//! writes to the client in JSON-RPC and HTTP errors, and to the human in elicitation
//! requests, is in `mcp/messages.rs`.) So a reviewer reads all of it here (and in
//! `tests/tests/snapshots/messages.txt`, which shows each one filled in), and a change of
//! wording is one edit that the snapshot test makes visible.
//!
//! The sentences follow one pattern: what happened, then what the model should do next.
//! They never leak internals (a panic's payload, a file path); those go to the host.

use crate::tier::{Autonomy, Tier};
use std::fmt::Display;

/// A call to a name the request does not offer, with the closest offered name if one is
/// near and the list of offered names.
pub fn unknown_tool(name: &str, closest: Option<&str>, offered: &[&str]) -> String {
    let hint = match closest {
        Some(candidate) => format!(" Did you mean \"{candidate}\"?"),
        None => String::new(),
    };
    if offered.is_empty() {
        return format!("There is no tool named \"{name}\".{hint} No tools are available.");
    }
    format!(
        "There is no tool named \"{name}\".{hint} The available tools are: {}.",
        offered.join(", ")
    )
}

/// A call from the model's code to a tool the request lets only the model itself call.
pub fn not_from_code(name: &str) -> String {
    format!(
        "The tool \"{name}\" cannot be called from code: call it directly, as a tool call of your own."
    )
}

/// A call from the model's code whose arguments make it irreversible (the tool's
/// escalation, with its reason): code never makes an irreversible call.
pub fn irreversible_from_code(name: &str, reason: &str) -> String {
    format!(
        "The call to \"{name}\" cannot be made from code: with these arguments it is irreversible ({reason}). Call it directly, as a tool call of your own."
    )
}

/// A call without an id.
pub fn call_without_id() -> String {
    "This call has no id. Give every call an id of its own, so its result can be matched to it."
        .to_owned()
}

/// A call whose id other calls of the program share; `positions` are the 1-based
/// positions of every call using it.
pub fn shared_call_id(id: &str, positions: &[usize]) -> String {
    let positions: Vec<String> = positions.iter().map(usize::to_string).collect();
    format!(
        "The call id \"{id}\" is used by {} calls of this batch (calls {}). Give every call an id of its own.",
        positions.len(),
        positions.join(", ")
    )
}

/// A call of a tool whose declaration is broken (a constraint that cannot be checked);
/// `why` is for the developer.
pub fn misdeclared(name: &str, why: &str) -> String {
    format!(
        "The tool \"{name}\" cannot be used: its declaration is broken, which is no fault of your call \
         (for its developer: {why}). Do without it."
    )
}

/// Arguments that are JSON of another type than an object; `got` describes what was sent.
pub fn not_an_object(at: &str, got: &str) -> String {
    format!("{at}: expected an object of named arguments, got {got}")
}

/// A value at `at` that does not fit: what the schema expects there, what was sent.
pub fn expected_got(at: &str, expected: &str, got: &str) -> String {
    format!("{at}: expected {expected}, got {got}")
}

/// A required key missing at `at`; `expected` describes its value, if known.
pub fn missing_key(at: &str, expected: Option<&str>) -> String {
    match expected {
        Some(expected) => format!("{at}: missing required key (expected {expected})"),
        None => format!("{at}: missing required key"),
    }
}

/// A key at `at` the schema does not declare, with the nearest declared key and the
/// declared keys of its object.
pub fn unknown_key(at: &str, nearest: Option<&str>, known: &[&str]) -> String {
    let hint = match nearest {
        Some(nearest) => format!(" Did you mean \"{nearest}\"?"),
        None => String::new(),
    };
    let keys = if known.is_empty() {
        "this object takes no keys".to_owned()
    } else {
        format!("the keys here are {}", known.join(", "))
    };
    format!("{at}: unknown key.{hint} Remove it ({keys})")
}

/// Valid JSON that serde_json's reader refused inside a number; `error` is its words.
pub fn unreadable_number(at: &str, error: &str) -> String {
    format!(
        "{at}: a number cannot be read ({error}); write an integer as digits without a fraction \
         or exponent, and keep every number within its range"
    )
}

/// A call to a tool the request's policy denies.
pub fn denied(name: &str) -> String {
    format!("The tool \"{name}\" is not available in this conversation. Do without it.")
}

/// Arguments that are not JSON at all; `error` is the parser's description.
pub fn malformed_json(name: &str, error: &dyn Display) -> String {
    format!(
        "The arguments of \"{name}\" are not valid JSON ({error}). Send one JSON object with the tool's arguments."
    )
}

/// Arguments that are JSON but do not fit the tool's schema; `details` lists the mistakes.
pub fn invalid_arguments(name: &str, details: &str) -> String {
    format!(
        "Invalid arguments for \"{name}\": {details}. Check them against the tool's schema and call it again."
    )
}

/// The answer to a good call of a rejected program: `bad` other calls were invalid.
pub fn not_run_batch_invalid(bad: usize) -> String {
    format!(
        "Not run: {bad} other call(s) in this batch were invalid, so none of the batch ran. \
         Fix them and send the whole batch again."
    )
}

/// The answer to a call that waits for a human, in a report and as a proposal's pending
/// result (the "continue" conversation style).
pub const AWAITING_APPROVAL: &str = "Awaiting approval: this call was proposed to the user and has not run. \
     Do not assume it happened; carry on with the rest.";

/// The answer to a proposal the human declined, with the human's reason: the call did
/// not run, and asking again is not the way on.
pub fn declined(reason: &str) -> String {
    format!(
        "Declined by the user: {reason}. The call did not run; do not make it again or ask \
         for it again unless the user asks you to."
    )
}

/// The answer to an approved call of a tool without a handler: the host carries it out.
pub fn handed_off(tool: &str) -> String {
    format!(
        "Approved by the user, who carries out this call to `{tool}` themselves (it has no handler here). Do not make it again."
    )
}

/// Why a call failed when its handler asked for one retry more than the conversation
/// allows the tool: the limit, and the handler's last hint.
pub fn retries_exhausted(tool: &str, limit: u32, hint: &str) -> String {
    format!(
        "`{tool}` asked to be called again more than {limit} times in this conversation, its limit, so this call failed (its last hint: {hint}). Do not call it again the same way; tell the user what went wrong."
    )
}

/// The human's reason [`declined`] gives when the human said no where the MCP server asked
/// them, which carries no reason.
pub const DECLINED_WHEN_ASKED: &str = "they did not approve it when asked";

/// The answer to a call whose proposal expired before anyone approved or declined it.
pub const EXPIRED: &str = "Not approved in time: nobody decided on this call before its approval expired, so it did not run. If it is still needed, say so to the user and make the call again.";

/// The answer to a call that needs a human's approval when the proposal store already holds
/// as many proposals as its limits allow ([`ProposalLimits`](crate::store::ProposalLimits)):
/// nothing was stored, nobody was asked.
pub const NOT_PROPOSED_FULL: &str = "Not run: this call needs the user's approval, and too many calls already wait for the user to decide, so it was not put to them. Wait until the user has decided on the calls already proposed, then make it again if it is still needed.";

/// How a late result came to be late: what the follow-up (continue style) tells the model
/// beside it. A reply carries it as [`ToolReply::late`](crate::output::ToolReply::late).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Late {
    /// The call waited for the user's approval (the model was told so), and the user
    /// decided: it ran, was declined, or expired.
    Approval,
    /// The host stopped while the call ran (a crash cut it off), and the host had it run
    /// again ([`Approvals::rerun`](crate::Approvals::rerun)).
    RunAgain,
    /// The host stopped before the model had the call's result: the call ended, or the
    /// host marked how it ended, and nothing ran it again.
    CutOff,
}

/// The follow-up (continue style) telling the model how a call it has no result of
/// ended: `how` it came to be late, `outcome` the late result's text.
pub fn late_result(call_id: &str, tool: &str, how: Late, outcome: &str) -> String {
    let how = match how {
        Late::Approval => ", which was awaiting approval, has now been resolved",
        Late::RunAgain => {
            " was cut off when the host stopped while it ran, and has now been run again"
        }
        Late::CutOff => {
            " was cut off when the host stopped before you had its result, which is now known"
        }
    };
    format!("Update: your earlier call {call_id} to `{tool}`{how}. Its result: {outcome}")
}

/// The answer of a handler that deliberately did nothing.
pub fn skipped(reason: &str) -> String {
    format!("Skipped: {reason}")
}

/// The answer of a handler that failed, with its message.
pub fn failed(message: &str) -> String {
    format!("Error: {message}")
}

/// The answer of a handler that asked the model to call the tool again, corrected, with
/// its hint (a sentence of its own, closed with a period unless it ends one already).
pub fn retry(hint: &str) -> String {
    let hint = hint.trim_end();
    let stop = if hint.ends_with(['.', '!', '?']) {
        ""
    } else {
        "."
    };
    format!("Error: {hint}{stop} Correct the call as this says and call this tool again.")
}

/// The answer to a call apply refused to run, with the reason.
pub fn refused(reason: &str) -> String {
    format!("Not run: {reason}")
}

/// Apply's reason for not running a propose-only tool.
pub fn refused_propose_only(name: &str) -> String {
    format!("\"{name}\" can only be proposed to the user; it has no handler to run")
}

/// Apply's reason for not running a call whose tier is above the autonomy that approved it.
pub fn refused_above_autonomy(name: &str, tier: Tier, level: Autonomy) -> String {
    format!(
        "\"{name}\" has the risk tier {tier}, and here {}; it needs the user's approval",
        ceiling(level)
    )
}

/// What runs without the user at `level`.
fn ceiling(level: Autonomy) -> &'static str {
    match level {
        Autonomy::Off => "nothing runs without the user",
        Autonomy::ReadOnly => "only read_only tools run without the user",
        Autonomy::Reversible => "only read_only and reversible tools run without the user",
        Autonomy::ExternalReversible => "every tier but irreversible runs without the user",
    }
}

/// The answer to a call stopped at its time limit.
pub fn timed_out(after_ms: u128) -> String {
    format!("Error: the tool did not finish within {after_ms} ms and was stopped")
}

/// A compiled tool's call apply found itself about to run without the state (not
/// reached: apply takes the state for every compiled call).
pub fn state_not_taken(tool: &str) -> String {
    format!("the call to \"{tool}\" was not run: the state was not taken for it")
}

/// The answer to a cancelled call.
pub const CANCELLED: &str = "Cancelled: the call was cancelled before it finished";

/// The answer to a call whose handler panicked; the panic text may hold internals, so the
/// model only learns that the tool crashed.
pub const PANICKED: &str = "Error: the tool crashed while handling this call";

/// A handler's `Json<T>` result that could not be serialized.
pub fn unserializable_result(error: &dyn Display) -> String {
    format!("the result could not be serialized: {error}")
}

/// A tool's structured output that breaks its declared output schema; `problems` says
/// where and how (`/n: expected an integer, got "x"`). It is not sent: the model would
/// read a value the tool's declaration promises never to give.
pub fn output_mismatch(problems: &str) -> String {
    format!(
        "the tool's output did not match its declared output schema ({problems}), so it was \
         not sent; this is a fault of the tool, not of your call"
    )
}

/// A non-finite float (NaN, an infinity) at `at` in a structured output, one problem of
/// [`output_mismatch`]: JSON cannot hold it, and serde_json would have written `null`.
pub fn non_finite_output(at: &str) -> String {
    format!("{at}: NaN or an infinity, which JSON cannot hold (it would have been sent as null)")
}

/// The failure of a writing tool handed shared state (apply never does this).
pub fn exclusive_access_required(name: &str) -> String {
    format!("internal error: the tool `{name}` writes state but was run with shared access")
}

/// The failure of running a propose-only tool's (absent) handler.
pub fn propose_only_has_no_handler(name: &str) -> String {
    format!("the tool `{name}` can only be proposed to a human; it has no handler to run")
}

/// The hint after an unknown-tool message when the request defers tools: the search tool
/// finds more.
pub fn search_hint(search_tool: &str) -> String {
    format!(" If none of them fits, call \"{search_tool}\" to find more tools.")
}

/// A call to a tool the request declares but does not offer: only so the history stays
/// valid, or until a native tool search loads it.
pub fn declared_only(name: &str, offered: &[&str]) -> String {
    let available = if offered.is_empty() {
        "No tools are available.".to_owned()
    } else {
        format!("The available tools are: {}.", offered.join(", "))
    };
    format!(
        "The tool \"{name}\" is not available in this request: it is listed only because the conversation used it, or until a tool search loads it. {available}"
    )
}

/// The description of a stand-in declaration: a tool the history names that the set no
/// longer has.
pub const STAND_IN: &str = "Not available any more; declared only because the conversation used it earlier. Do not call it.";

/// Search arguments that do not fit (`details` is the parser's description).
pub fn search_invalid_arguments(search_tool: &str, details: &dyn Display) -> String {
    format!(
        "Invalid arguments for \"{search_tool}\": {details}. Send {{\"query\": \"keywords\"}} (or {{\"pattern\": \"a regular expression\"}})."
    )
}

/// A search call that says neither what to look for nor how.
pub fn search_needs_query(search_tool: &str) -> String {
    format!(
        "Invalid arguments for \"{search_tool}\": say what to look for with \"query\" (keywords) or \"pattern\" (a regular expression)."
    )
}

/// A search pattern longer than the limit.
pub fn pattern_too_long(len: usize, limit: usize) -> String {
    format!(
        "The pattern is {len} bytes long; the limit is {limit}. Send a shorter pattern, e.g. \"calendar|event\"; nothing was searched."
    )
}

/// A search pattern that does not compile (`reason`: why), or is too complex.
pub fn bad_pattern(pattern: &str, reason: &str) -> String {
    format!(
        "The pattern \"{pattern}\" is not a usable regular expression ({reason}). Send a simpler one, e.g. \"calendar|event\"; nothing was searched."
    )
}

/// A regex search that matched nothing.
pub fn no_tool_matches_pattern(pattern: &str) -> String {
    format!(
        "No tool matches the pattern \"{pattern}\". Try a broader pattern, e.g. one word of the capability you need."
    )
}

/// A keyword search that found nothing.
pub fn no_tool_matches_query(query: &str) -> String {
    format!("No tool matches \"{query}\". Try other or fewer keywords.")
}

/// What a search found: each tool's name and the first line of its description; they are
/// offered from the next request on.
pub fn found_tools(found: &[(&str, &str)]) -> String {
    let mut text = format!(
        "Found {} tool(s); they are available from your next message on:",
        found.len()
    );
    for (name, summary) in found {
        text.push_str(&format!("\n- {name}: {summary}"));
    }
    text
}

/// A tool's output activating names the set does not have (`known`: the set's tools).
pub fn unknown_activation(unknown: &[&str], set: &str, known: &[&str]) -> String {
    let unknown: Vec<String> = unknown.iter().map(|name| format!("\"{name}\"")).collect();
    format!(
        "the tool's output activates {}, which the set `{set}` does not have (it has: {})",
        unknown.join(", "),
        known.join(", ")
    )
}

/// The message of a call the MCP server withheld for a human, when none is configured;
/// see `McpServer::with_withheld_message` (feature `mcp`). Its placeholders are filled in
/// by [`withheld`].
pub const DEFAULT_WITHHELD_MESSAGE: &str =
    "Needs human approval: {reason}. The call was not run. {next}";

/// What held a call back from running without the user: each thing that did. Read from a
/// proposal by [`Held::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held<'a> {
    /// The call's tier (after the tool's escalation).
    pub tier: Tier,
    /// The autonomy in force: a tier it does not allow held the call.
    pub autonomy: Autonomy,
    /// Why the tool raised this call's tier, when it did.
    pub raised: Option<&'a str>,
    /// Why the lethal-trifecta rule held the call, when it did ([`trifecta_reason`]).
    pub trifecta: Option<&'a str>,
    /// The tool can only be proposed: it has no handler.
    pub propose_only: bool,
}

impl<'a> Held<'a> {
    /// What held a proposal of `tier` at `autonomy`, from the reason it shows the human
    /// (`shown`: the tool's escalation reason, the trifecta rule's, or both, as
    /// `plan.rs`'s `with_held` joins them) and whether its tool is propose-only.
    pub fn of(tier: Tier, autonomy: Autonomy, shown: Option<&'a str>, propose_only: bool) -> Self {
        let trifecta = shown.and_then(held_part);
        let raised = match (shown, trifecta) {
            (Some(shown), Some(held)) => shown
                .strip_suffix(held)
                .and_then(|raised| raised.strip_suffix("; "))
                .filter(|raised| !raised.is_empty()),
            (shown, None) => shown,
            (None, Some(_)) => None,
        };
        Held {
            tier,
            autonomy,
            raised,
            trifecta,
            propose_only,
        }
    }
}

/// What the model should do about a withheld call, which only the user can decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next<'a> {
    /// Nobody was asked, or nobody answered: the user can still approve it.
    Ask,
    /// The user was asked and declined, for the reason given.
    Declined(&'a str),
    /// Nothing here can approve it (a propose-only tool where nobody can carry it out):
    /// only the user, by doing it themselves.
    NobodyCanApprove,
}

/// Why `tool`'s call is withheld, as one clause naming what held it: a tier above the
/// autonomy (and the tool's reason when it raised the call's tier), the lethal-trifecta
/// rule with its reason, a propose-only tool. What the model reads ([`withheld`]) and what
/// the human is asked (the MCP server's approval form) both say it.
pub fn why_withheld(tool: &str, held: &Held<'_>) -> String {
    let mut why = Vec::new();
    if held.propose_only {
        why.push(format!(
            "{} (its risk tier: {})",
            refused_propose_only(tool),
            held.tier
        ));
    } else if !held.autonomy.allows(held.tier) {
        let (tier, ceiling) = (held.tier, ceiling(held.autonomy));
        why.push(match held.raised {
            Some(reason) => format!(
                "\"{tool}\" raised this call to the risk tier {tier} ({reason}), and here {ceiling}"
            ),
            None => format!("\"{tool}\" has the risk tier {tier}, and here {ceiling}"),
        });
    }
    if let Some(reason) = held.trifecta {
        why.push(format!(
            "the lethal-trifecta rule holds it back, as {reason}"
        ));
    }
    if why.is_empty() {
        // Not reached: a call is withheld for one of the above.
        why.push(format!("\"{tool}\" needs the user's approval here"));
    }
    why.join("; and ")
}

/// What the model reads of a call withheld for the user and not run: `template` (the
/// default above or the host's own) with `{tool}`, `{tier}` (the call's), `{autonomy}`
/// (`autonomy`, as the server spells it), `{reason}` ([`why_withheld`]) and `{next}` (what to
/// do now) filled in. The reason is always stated, appended when the template has no
/// `{reason}`; so is the next step when it is not to ask the user (the template cannot
/// know it), when the template has no `{next}`. A call the user declined is answered as
/// declined ([`declined`]), whatever the template.
pub fn withheld(
    template: &str,
    tool: &str,
    held: &Held<'_>,
    autonomy: &str,
    next: Next<'_>,
) -> String {
    let then = match next {
        Next::Declined(reason) => return declined(reason),
        Next::Ask => "Ask the user to approve it, or to carry it out themselves.",
        Next::NobodyCanApprove => {
            "Nothing on this server can approve it, so do not ask for an approval; if it is \
             still needed, tell the user what it would do, so they can do it themselves."
        }
    };
    let mut text = template.to_owned();
    if !template.contains("{reason}") {
        text.push_str(" (why: {reason})");
    }
    if !template.contains("{next}") && next != Next::Ask {
        text.push_str(" {next}");
    }
    // The reason last: it holds the tool's own words, which are not a template.
    text.replace("{tool}", tool)
        .replace("{tier}", held.tier.as_str())
        .replace("{autonomy}", autonomy)
        .replace("{next}", then)
        .replace("{reason}", &why_withheld(tool, held))
}

/// A call that waited for the state longer than the host's time limit (the MCP server's,
/// shared between sessions), and did not run.
pub fn waited_too_long(limit: std::time::Duration) -> String {
    format!(
        "Timed out: the call waited {} ms for other calls to finish and was not started; \
         nothing changed. Try again later.",
        limit.as_millis()
    )
}

/// A proxied MCP server that did not answer a forwarded call (its process died, its
/// connection broke); `error` is the transport's reason.
pub fn proxy_unreachable(label: &str, error: &dyn Display) -> String {
    format!(
        "The tool server \"{label}\" did not answer ({error}); its tools may be unavailable now. \
         Do not retry this call right away."
    )
}

/// A call to a proxied tool withheld because its server changed its definition since the
/// host accepted it (`changed` names the fields), or listed it new while the host holds
/// new tools.
pub fn proxied_tool_withheld(name: &str, new: bool, changed: &[&str]) -> String {
    let what = if new {
        "its server added it after the host approved the server's tools".to_owned()
    } else {
        let fields = match changed {
            [] => "definition".to_owned(),
            [one] => (*one).to_owned(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        };
        format!("its server changed its {fields} since the host approved it")
    };
    format!(
        "The tool \"{name}\" is withheld: {what}, and the host has not accepted the change. \
         Do not call it; use another tool, or tell the user it needs the host's review."
    )
}

/// A call to a proxied tool whose definition could not be compared with its pin (the
/// store failed): withheld, as every tool of its namespace.
pub fn proxied_tool_unverified(name: &str) -> String {
    format!(
        "The tool \"{name}\" is withheld: its definition could not be checked against the one \
         the host approved. Do not call it now; use another tool, or tell the user."
    )
}

/// A proxied MCP server that wrote something that is not JSON-RPC while a forwarded call
/// waited for its answer.
pub fn proxy_not_json_rpc(label: &str) -> String {
    format!(
        "The tool server \"{label}\" answered with something that is not JSON-RPC, so this \
         call's result was lost; it may or may not have run. Check before retrying it."
    )
}

/// A proxied MCP server that answered a forwarded call with an error result and no text.
pub fn proxy_error_without_text(label: &str) -> String {
    format!("The tool server \"{label}\" reported an error without saying what went wrong.")
}

/// Why a call that sends outside is held back in a run exposed to the lethal trifecta: the
/// reason a proposal shows the human (the tools named are those whose calls brought each
/// kind of content into the run, or into the program being gated).
pub fn trifecta_reason(name: &str, private_from: &[String], untrusted_from: &[String]) -> String {
    format!(
        "{TRIFECTA_OPENING}{}) and untrusted content (from {}); \"{name}\" \
         sends data outside, and sending now could leak the one through the other",
        private_from.join(", "),
        untrusted_from.join(", ")
    )
}

/// A call that sends outside, refused because the run has read private data and
/// untrusted content and the policy denies sending then.
pub fn trifecta_denied(name: &str, private_from: &[String], untrusted_from: &[String]) -> String {
    format!(
        "The tool \"{name}\" cannot be called now: this run has read private data (from {}) \
         and untrusted content (from {}), and sending data outside after both is not allowed. \
         Finish the task without sending, or tell the user what you would send and where.",
        private_from.join(", "),
        untrusted_from.join(", ")
    )
}

/// Added to an MCP tool result that would activate tools (a `tool_search`'s finds) when its
/// request stands alone (2026-07-28 over HTTP, without a session): nothing is kept for the
/// next request, so the tools found are not activated.
#[cfg(feature = "mcp")]
pub(crate) const NOT_KEPT_WITHOUT_SESSION: &str = "Note: this connection keeps no session, \
     so the tools found above are not made available: a call to one of them will be refused \
     as unknown. Use the tools already listed.";

/// The source [`trifecta_reason`] names for what a request without a session cannot see:
/// the conversation's earlier requests, presumed to have read both kinds.
#[cfg(feature = "mcp")]
pub(crate) const UNSEEN_REQUESTS: &str =
    "the conversation's earlier requests, unseen by a request without a session";

/// How [`trifecta_reason`] opens.
const TRIFECTA_OPENING: &str = "this run has read private data (from ";

/// The part of a proposal's shown reason that is [`trifecta_reason`]'s, if any: all of it,
/// or what follows the tool's own reason and `"; "`.
pub(crate) fn held_part(shown: &str) -> Option<&str> {
    if shown.starts_with(TRIFECTA_OPENING) {
        return Some(shown);
    }
    let at = shown.find(&format!("; {TRIFECTA_OPENING}"))?;
    Some(&shown[at + 2..])
}

/// What the model reads of a call the host marked done after a crash cut it off: it ran,
/// and its result was lost.
pub const MARKED_DONE: &str = "The call ran, but its result was lost when the host stopped. Do not call it again for the same purpose.";

/// What the model reads of a call the host marked failed after a crash cut it off: it did
/// not take effect.
pub const MARKED_FAILED: &str =
    "The call was interrupted before it took effect. Call it again if it is still needed.";

/// Apply's reason for not running a call whose start could not be journaled.
pub fn journal_unavailable(name: &str) -> String {
    format!(
        "\"{name}\" could not be recorded before running, which every call that changes something must be; try the call again later"
    )
}

/// Apply's reason for not running a call the journal shows was started before.
pub fn already_started(name: &str) -> String {
    format!(
        "this call to \"{name}\" (the same call id and arguments) was already started once, and a call never runs twice; make a new call if you mean to do it again"
    )
}
