//! How the example prints what happens, so a reader can follow the loop.

use serde_json::Value;
use toolset::report::Outcome;
use toolset::{Proposal, ToolSpec};

/// A section heading.
pub fn heading(title: &str) {
    println!("\n=== {title} ===");
}

/// The generated tool list: what the model reads.
pub fn tool_list(specs: &[ToolSpec]) {
    for spec in specs {
        let mut flags = Vec::new();
        if spec.is_propose_only() {
            flags.push("propose-only");
        }
        if spec.is_idempotent() {
            flags.push("idempotent");
        }
        if spec.is_deferred() {
            flags.push("deferred: found by tool_search");
        }
        // What the tool touches: the inputs of the gate's lethal-trifecta rule.
        let labels = spec.labels();
        match (labels.reads_private(), labels.reads_untrusted()) {
            (true, true) => flags.push("reads private, untrusted"),
            (true, false) => flags.push("reads private"),
            (false, true) => flags.push("reads untrusted"),
            (false, false) => {}
        }
        if labels.sends_outside() {
            flags.push("sends outside");
        }
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        };
        println!("- {} (tier: {}){flags}", spec.name(), spec.tier());
        println!("  {}", spec.description());
        println!("  arguments: {}", compact(spec.input_schema()));
    }
}

/// One proposal, as a person reviewing it would see it.
pub fn proposal(proposal: &Proposal) {
    let call = proposal.call();
    println!(
        "- {} ({}) needs approval: {}({})",
        call.id,
        proposal.tier(),
        call.name,
        call.arguments
    );
    // The tool's own escalation, then the gate's lethal-trifecta rule: one line each.
    if let Some(raised) = proposal.raised_because() {
        println!("    escalated: {raised}");
    }
    if let Some(held) = proposal.held_by_trifecta() {
        println!("    held by the trifecta rule: {held}");
    }
    if let Some(preview) = proposal.preview::<inbox_agent::InboxTools>() {
        for line in preview.lines() {
            println!("    | {line}");
        }
    }
}

/// One outcome of `apply`.
pub fn outcome(call_id: &str, name: &str, outcome: &Outcome) {
    let detail = match outcome {
        Outcome::Done(output) => output.text_content(),
        Outcome::Skipped { reason } => reason.clone(),
        Outcome::Failed { message } | Outcome::Panicked { message } => message.clone(),
        Outcome::Refused { reason } => reason.clone(),
        Outcome::Retry { hint } => hint.clone(),
        Outcome::TimedOut { after } => format!("after {after:?}"),
        // `Outcome` is non-exhaustive: a future kind shows as what the model reads.
        _ => outcome.to_tool_output().text_content(),
    };
    println!(
        "- {call_id} {name}: {} {detail}",
        outcome.kind().to_uppercase()
    );
}

/// Messages sent back to the model.
pub fn messages(messages: &[Value]) {
    for message in messages {
        println!("  -> {}", compact(message));
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| format!("<unprintable: {error}>"))
}
