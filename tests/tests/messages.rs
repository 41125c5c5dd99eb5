//! Every sentence the model reads from the run-time pipeline and the MCP server, filled in with sample
//! values and compared with `tests/snapshots/messages.txt`, so a reviewer reads all the
//! model-facing text in one file and every change of wording shows in a diff.
//!
//! After an intended change: `TOOLSET_BLESS=1 cargo test -p toolset-tests --test messages`,
//! then read the diff of the snapshot.

use std::fmt::Write as _;
use toolset::__private::messages;
use toolset::{Autonomy, Tier};

/// What held a call back, read as the MCP server reads a proposal.
fn held(
    tier: Tier,
    autonomy: Autonomy,
    shown: Option<&str>,
    propose_only: bool,
) -> messages::Held<'_> {
    messages::Held::of(tier, autonomy, shown, propose_only)
}

/// The MCP server's withheld message, at the autonomy spelled as it spells it.
fn withheld(
    template: &str,
    tool: &str,
    held: &messages::Held<'_>,
    next: messages::Next<'_>,
) -> String {
    let autonomy = serde_json::to_value(held.autonomy).expect("an autonomy serializes");
    messages::withheld(template, tool, held, autonomy.as_str().unwrap_or("?"), next)
}

fn all_messages() -> Vec<(&'static str, String)> {
    let trifecta = messages::trifecta_reason(
        "send_email",
        &["read_inbox".to_owned()],
        &["fetch_page".to_owned()],
    );
    let json_error = serde_json::from_str::<serde_json::Value>(r#"{"key": "a""#)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    vec![
        (
            "unknown tool, with a near name",
            messages::unknown_tool("raed_note", Some("read_note"), &["read_note", "write_note"]),
        ),
        (
            "unknown tool, nothing near",
            messages::unknown_tool("fly", None, &["read_note", "write_note"]),
        ),
        (
            "unknown tool, none offered",
            messages::unknown_tool("read_note", None, &[]),
        ),
        ("denied", messages::denied("write_note")),
        (
            "denied: a proxied tool its server changed since it was pinned",
            messages::proxied_tool_withheld(
                "github_create_issue",
                false,
                &["description", "inputSchema"],
            ),
        ),
        (
            "denied: a proxied tool added while the host holds new tools",
            messages::proxied_tool_withheld("github_delete_repo", true, &[]),
        ),
        (
            "denied: a proxied tool whose pin could not be compared",
            messages::proxied_tool_unverified("github_create_issue"),
        ),
        ("not_from_code", messages::not_from_code("write_note")),
        (
            "irreversible_from_code",
            messages::irreversible_from_code("write_note", "the note is shared with everyone"),
        ),
        (
            "malformed JSON",
            messages::malformed_json("read_note", &json_error),
        ),
        (
            "invalid arguments",
            messages::invalid_arguments("write_note", "missing field `key`"),
        ),
        (
            "trifecta: the send denied",
            messages::trifecta_denied(
                "send_email",
                &["read_inbox".to_owned()],
                &["fetch_page".to_owned(), "read_issue".to_owned()],
            ),
        ),
        (
            "trifecta: why the send is proposed (shown to the human)",
            messages::trifecta_reason(
                "send_email",
                &["read_inbox".to_owned()],
                &["fetch_page".to_owned()],
            ),
        ),
        ("not run: batch invalid", messages::not_run_batch_invalid(2)),
        ("awaiting approval", messages::AWAITING_APPROVAL.to_owned()),
        ("declined", messages::declined("not today")),
        ("expired unanswered", messages::EXPIRED.to_owned()),
        (
            "late result (continue style follow-up): awaiting approval",
            messages::late_result(
                "call_7",
                "delete_note",
                messages::Late::Approval,
                "deleted note 4",
            ),
        ),
        (
            "late result: run again after a crash cut it off",
            messages::late_result(
                "call_8",
                "delete_note",
                messages::Late::RunAgain,
                "deleted note 5",
            ),
        ),
        (
            "late result: cut off before its result was delivered",
            messages::late_result(
                "call_9",
                "delete_note",
                messages::Late::CutOff,
                "deleted note 6",
            ),
        ),
        ("skipped", messages::skipped("the note already says that")),
        ("failed", messages::failed("the disk is full")),
        (
            "retry",
            messages::retry("\"tuesday\" is not a date; write it as YYYY-MM-DD"),
        ),
        (
            "retry, the hint a full sentence",
            messages::retry("Use an id from the list."),
        ),
        (
            "failed: proxied server unreachable",
            messages::failed(&messages::proxy_unreachable("github", &"Transport closed")),
        ),
        (
            "failed: proxied error without text",
            messages::failed(&messages::proxy_error_without_text("github")),
        ),
        (
            "failed: proxied server answered with something not JSON-RPC",
            messages::failed(&messages::proxy_not_json_rpc("github")),
        ),
        (
            "refused",
            messages::refused(&messages::refused_above_autonomy(
                "delete_note",
                Tier::Irreversible,
                Autonomy::Reversible,
            )),
        ),
        (
            "refused: propose-only",
            messages::refused(&messages::refused_propose_only("notice")),
        ),
        (
            "refused: the journal failed",
            messages::refused(&messages::journal_unavailable("write_note")),
        ),
        (
            "refused: already started",
            messages::refused(&messages::already_started("write_note")),
        ),
        ("in doubt, marked done", messages::MARKED_DONE.to_owned()),
        (
            "in doubt, marked failed",
            messages::MARKED_FAILED.to_owned(),
        ),
        ("timed out", messages::timed_out(20)),
        ("cancelled", messages::CANCELLED.to_owned()),
        ("panicked", messages::PANICKED.to_owned()),
        (
            "failed: unserializable result",
            messages::failed(&messages::unserializable_result(&"key must be a string")),
        ),
        (
            "failed: output does not match the output schema",
            messages::failed(&messages::output_mismatch(
                "/n: expected an integer, got \"x\"; /extra: a key the output schema does not declare",
            )),
        ),
        (
            "failed: non-finite number in the output",
            messages::failed(&messages::output_mismatch(&messages::non_finite_output(
                "/ratio",
            ))),
        ),
        (
            "failed: exclusive access required",
            messages::failed(&messages::exclusive_access_required("write_note")),
        ),
        (
            "failed: propose-only has no handler",
            messages::failed(&messages::propose_only_has_no_handler("notice")),
        ),
        (
            "unknown tool, with tools deferred",
            messages::unknown_tool("convert", None, &["read_note", "tool_search"])
                + &messages::search_hint("tool_search"),
        ),
        (
            "declared only (history or not loaded yet)",
            messages::declared_only("archive", &["read_note", "write_note"]),
        ),
        ("stand-in declaration", messages::STAND_IN.to_owned()),
        (
            "search: invalid arguments",
            messages::search_invalid_arguments("tool_search", &"unknown field `q`"),
        ),
        (
            "search: no query",
            messages::search_needs_query("tool_search"),
        ),
        (
            "search: pattern too long",
            messages::pattern_too_long(300, 256),
        ),
        (
            "search: bad pattern",
            messages::bad_pattern("(weather", "unclosed group"),
        ),
        (
            "search: nothing matches the pattern",
            messages::no_tool_matches_pattern("^fly"),
        ),
        (
            "search: nothing matches the query",
            messages::no_tool_matches_query("teleport"),
        ),
        (
            "search: found",
            messages::found_tools(&[
                ("get_weather", "Get the weather forecast for a city."),
                ("convert", "Convert an amount between currencies."),
            ]),
        ),
        (
            "failed: unknown activation",
            messages::failed(&messages::unknown_activation(
                &["get_wether"],
                "Tools",
                &["now", "get_weather"],
            )),
        ),
        (
            "MCP: withheld for a human (the default message)",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "archive",
                &held(Tier::Reversible, Autonomy::ReadOnly, None, false),
                messages::Next::Ask,
            ),
        ),
        (
            "MCP: withheld, the tool raised the call's tier",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "forward",
                &held(
                    Tier::Irreversible,
                    Autonomy::ExternalReversible,
                    Some("billing@cy-partners.example is outside the company"),
                    false,
                ),
                messages::Next::Ask,
            ),
        ),
        (
            "MCP: withheld by the trifecta rule alone",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "send_email",
                &held(
                    Tier::ExternalReversible,
                    Autonomy::ExternalReversible,
                    Some(&trifecta),
                    false,
                ),
                messages::Next::Ask,
            ),
        ),
        (
            "MCP: withheld by a raised tier and the trifecta rule",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "send_email",
                &held(
                    Tier::Irreversible,
                    Autonomy::ExternalReversible,
                    Some(&format!("the recipient is outside the company; {trifecta}")),
                    false,
                ),
                messages::Next::Ask,
            ),
        ),
        (
            "MCP: a propose-only tool, which nothing here can approve",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "draft_contract",
                &held(Tier::Irreversible, Autonomy::ReadOnly, None, true),
                messages::Next::NobodyCanApprove,
            ),
        ),
        (
            "MCP: declined by the human when asked",
            withheld(
                messages::DEFAULT_WITHHELD_MESSAGE,
                "archive",
                &held(Tier::Reversible, Autonomy::ReadOnly, None, false),
                messages::Next::Declined(messages::DECLINED_WHEN_ASKED),
            ),
        ),
        (
            "MCP: withheld, the host's message without {reason}",
            withheld(
                "Ask a human first ({tool}).",
                "archive",
                &held(Tier::Reversible, Autonomy::Off, None, false),
                messages::Next::Ask,
            ),
        ),
        (
            "MCP: the host's message without {next}, nothing here can approve",
            withheld(
                "Ask a human first ({tool}): {reason}.",
                "draft_contract",
                &held(Tier::Irreversible, Autonomy::Off, None, true),
                messages::Next::NobodyCanApprove,
            ),
        ),
        (
            "MCP: waited too long for the state",
            messages::waited_too_long(std::time::Duration::from_secs(60)),
        ),
    ]
}

fn render() -> String {
    let mut text = String::from(
        "# Every sentence the model reads from the toolset pipeline and MCP server.\n\
         # Generated by tests/tests/messages.rs; re-bless with TOOLSET_BLESS=1.\n",
    );
    for (case, message) in all_messages() {
        let _ = write!(text, "\n## {case}\n{message}\n");
    }
    text
}

#[test]
fn every_model_facing_sentence_matches_the_snapshot() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/messages.txt");
    let actual = render();
    if std::env::var_os("TOOLSET_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("the snapshot is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "the model-facing messages changed; if intended, run \
         `TOOLSET_BLESS=1 cargo test -p toolset-tests --test messages` and review the diff.\n\
         --- expected ({})\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}
