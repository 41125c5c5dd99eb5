//! The inbox agent's state and tools: the example every part of the README uses.
//!
//! Each tool is declared once with `#[tool]`; `toolset!` assembles them into
//! [`InboxTools`], from which the model's tool list, the gate and the dispatch come.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use toolset::{Escalation, Json, Tier, ToolContext, ToolError, tool, toolset};

/// One message in the inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    /// The item's id.
    pub id: u32,
    /// Who sent it.
    pub from: String,
    /// The subject line.
    pub subject: String,
    /// The message text.
    pub body: String,
    /// The due date (ISO-8601), once one is set.
    pub due: Option<String>,
    /// Whether the item was archived.
    pub archived: bool,
    /// The labels put on the item.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Whom the item was forwarded to.
    #[serde(default)]
    pub forwarded_to: Vec<String>,
}

/// A search hit: enough for the model to pick an item.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Hit {
    /// The item's id.
    pub id: u32,
    /// Who sent it.
    pub from: String,
    /// The subject line.
    pub subject: String,
}

/// The agent's per-run state: the inbox it works on.
#[derive(Debug, Clone, Default)]
pub struct Inbox {
    /// Every item, archived or not.
    pub items: Vec<Item>,
    /// Where each change is recorded before it is made, one line per change (`archive 3`,
    /// `set_due_date 1 2026-12-15`, ...), appended so that several processes can share
    /// the file: the inbox's change log. `None`: changes are not recorded.
    pub change_log: Option<PathBuf>,
    /// For the example's crash demo only: the next change's handler stops after the change
    /// is recorded and before it is made, prints [`HALTED`] on stdout and waits for the
    /// process to be killed (aborting it after a minute if nobody does). `false` everywhere
    /// else.
    pub halt_before_change: bool,
}

impl Inbox {
    /// A small inbox for the example and the tests.
    pub fn sample() -> Inbox {
        let item = |id, from: &str, subject: &str, body: &str, due: Option<&str>| Item {
            id,
            from: from.into(),
            subject: subject.into(),
            body: body.into(),
            due: due.map(Into::into),
            archived: false,
            labels: Vec::new(),
            forwarded_to: Vec::new(),
        };
        Inbox {
            items: vec![
                item(
                    1,
                    "ana@example.com",
                    "Quarterly report",
                    "Please send the report by 2026-12-15.",
                    None,
                ),
                item(2, "ben@example.com", "Lunch?", "Lunch on Friday?", None),
                item(
                    3,
                    "cy@example.com",
                    "Invoice 4471",
                    "The invoice is due 2026-12-01.",
                    Some("2026-12-01"),
                ),
                item(
                    4,
                    "news@example.com",
                    "Weekly digest",
                    "This week in tools...",
                    None,
                ),
            ],
            change_log: None,
            halt_before_change: false,
        }
    }

    /// This inbox, recording every change in the file `path` before making it (see
    /// [`change_log`](Self::change_log)).
    pub fn with_change_log(mut self, path: impl Into<PathBuf>) -> Inbox {
        self.change_log = Some(path.into());
        self
    }

    fn item_mut(&mut self, id: u32) -> Result<&mut Item, ToolError> {
        self.items
            .iter_mut()
            .find(|item| item.id == id)
            .ok_or_else(|| {
                ToolError::failed(format!(
                    "there is no item {id}; search first to find its id"
                ))
            })
    }

    /// This inbox, halting inside the next change's handler until the process is killed
    /// (see [`halt_before_change`](Self::halt_before_change)): the crash demo's child.
    pub fn halting_before_change(mut self) -> Inbox {
        self.halt_before_change = true;
        self
    }

    /// Records `change` in the change log before it is made (see [`record`]); in the crash
    /// demo's child, halts there for the process to be killed.
    fn record(&self, change: &str) -> Result<(), ToolError> {
        record(self.change_log.as_deref(), change)?;
        if self.halt_before_change {
            println!("{HALTED} {change}");
            let _ = std::io::stdout().flush();
            std::thread::sleep(std::time::Duration::from_secs(60));
            std::process::abort();
        }
        Ok(())
    }
}

/// What a handler halted for the crash demo prints, followed by the change it was making.
pub const HALTED: &str = "halted inside the handler, before";

/// Appends `change` to the change log at `log`, if there is one, before the change is made:
/// a change that cannot be recorded is not made.
fn record(log: Option<&Path>, change: &str) -> Result<(), ToolError> {
    let Some(log) = log else {
        return Ok(());
    };
    let recorded = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut file| {
            // One write of the whole line: appends of several processes never interleave.
            file.write_all(format!("{change}\n").as_bytes())?;
            file.sync_data()
        });
    recorded.map_err(|error| {
        ToolError::failed(format!(
            "the change was not made: the change log {} could not be written ({error})",
            log.display()
        ))
    })
}

/// Search the inbox by free text in the sender, subject and body. Archived items are left out.
// Its hits are the user's mail, and their senders and subjects were written by others.
#[tool(tier = "read_only", reads = "private, untrusted")]
pub async fn search(
    inbox: &Inbox,
    ctx: &ToolContext,
    /// Words to look for, case-insensitive.
    query: String,
    /// At most this many hits (default 10).
    limit: Option<u32>,
) -> Json<Vec<Hit>> {
    let query = query.to_lowercase();
    let hits: Vec<Hit> = inbox
        .items
        .iter()
        .filter(|item| !item.archived)
        .filter(|item| {
            [&item.from, &item.subject, &item.body]
                .iter()
                .any(|text| text.to_lowercase().contains(&query))
        })
        .take(limit.unwrap_or(10) as usize)
        .map(|item| Hit {
            id: item.id,
            from: item.from.clone(),
            subject: item.subject.clone(),
        })
        .collect();
    ctx.report_progress(1.0, Some(1.0), Some("searched"));
    Json(hits)
}

/// Read one item in full.
// An item is the user's private mail, and its text was written by someone else: once the
// run has read one, a forward (which sends outside) waits for the user whatever the
// autonomy (the gate's lethal-trifecta rule).
#[tool(tier = "read_only", reads = "private, untrusted")]
pub async fn read_item(
    inbox: &Inbox,
    /// The item's id, from a search hit.
    id: u32,
) -> Result<Json<Item>, ToolError> {
    let item = inbox.items.iter().find(|item| item.id == id);
    item.cloned().map(Json).ok_or_else(|| {
        ToolError::failed(format!(
            "there is no item {id}; search first to find its id"
        ))
    })
}

/// Set the item's due date — only when the evidence states a real deadline.
#[tool(tier = "reversible", idempotent)]
pub async fn set_due_date(
    inbox: &mut Inbox,
    /// The item's id.
    id: u32,
    /// The deadline, as an ISO-8601 date (YYYY-MM-DD).
    due: String,
) -> Result<String, ToolError> {
    if inbox.item_mut(id)?.due.as_deref() == Some(due.as_str()) {
        return Err(ToolError::skipped(format!(
            "item {id} is already due {due}"
        )));
    }
    inbox.record(&format!("set_due_date {id} {due}"))?;
    inbox.item_mut(id)?.due = Some(due.clone());
    Ok(format!("item {id} is now due {due}"))
}

/// Archive an item the user no longer needs to see. It can be restored.
#[tool(tier = "reversible")]
pub async fn archive(
    inbox: &mut Inbox,
    /// The item's id.
    id: u32,
) -> Result<String, ToolError> {
    if inbox.item_mut(id)?.archived {
        return Err(ToolError::skipped(format!("item {id} is already archived")));
    }
    inbox.record(&format!("archive {id}"))?;
    inbox.item_mut(id)?.archived = true;
    Ok(format!("archived item {id}"))
}

/// The company's own domain: a forward inside it can be recalled, one outside cannot.
pub const OWN_DOMAIN: &str = "@example.com";

/// A forward to an address outside the company cannot be recalled: it needs the user, at
/// any autonomy. (It can only raise the declared tier, never lower it.)
fn outside_address(args: &forward) -> Option<Escalation> {
    (!args.to.to_lowercase().ends_with(OWN_DOMAIN)).then(|| {
        Escalation::to(
            Tier::Irreversible,
            format!("{} is outside {}", args.to, &OWN_DOMAIN[1..]),
        )
    })
}

/// Forward an item to a colleague. A forward inside the company can be recalled.
#[tool(tier = "reversible", escalate = outside_address, sends = "outside")]
pub async fn forward(
    inbox: &mut Inbox,
    /// The item's id.
    id: u32,
    /// The colleague's address.
    to: String,
) -> Result<String, ToolError> {
    inbox.item_mut(id)?;
    inbox.record(&format!("forward {id} {to}"))?;
    let item = inbox.item_mut(id)?;
    item.forwarded_to.push(to.clone());
    Ok(format!("forwarded item {id} ({}) to {to}", item.subject))
}

/// Put a label on an item (e.g. "finance", "waiting"), to group related items.
///
/// Deferred: it is not in the first tool list; the model finds it with `tool_search`.
#[tool(tier = "reversible", deferred, idempotent)]
pub async fn add_label(
    inbox: &mut Inbox,
    /// The item's id.
    id: u32,
    /// The label's text, lowercase.
    label: String,
) -> Result<String, ToolError> {
    if inbox.item_mut(id)?.labels.contains(&label) {
        return Err(ToolError::skipped(format!(
            "item {id} is already labelled {label}"
        )));
    }
    inbox.record(&format!("add_label {id} {label}"))?;
    inbox.item_mut(id)?.labels.push(label.clone());
    Ok(format!("labelled item {id} {label}"))
}

fn reply_preview(reply: &SendReply) -> String {
    format!("To: {}\n\n{}", reply.to, reply.body)
}

/// SEND a reply. You prepare it; the user reviews and sends it.
#[tool(
    tier = "irreversible",
    propose_only,
    preview = reply_preview,
    title = "Send reply",
    sends = "outside"
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
    /// The reply's full text.
    pub body: String,
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [search, read_item, set_due_date, archive, forward, add_label, SendReply];
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolset::prelude::*;
    use toolset::{Autonomy, ToolCall};

    /// Runs `archive` of item 3 on `inbox` unattended; the call's result text.
    fn archive_3(inbox: &mut Inbox) -> String {
        let call = ToolCall::new("c1", "archive", r#"{"id":3}"#);
        let plan = InboxTools::gate([call], Autonomy::Reversible).expect("archive runs");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let report = runtime.block_on(InboxTools::apply(inbox, &ToolContext::default(), plan));
        report.results()[0].output.text_content()
    }

    #[test]
    fn a_forward_within_the_autonomy_waits_for_the_user_once_the_run_read_an_item() {
        use toolset::request::Request;
        use toolset::run::Exposure;
        let policy = InboxTools::policy(Autonomy::Reversible);
        let forward = || ToolCall::new("c2", "forward", r#"{"id":3,"to":"dee@example.com"}"#);
        // A forward inside the company is reversible: it runs unattended at first...
        let exposure = Exposure::new();
        let plan = Request::new(&policy)
            .exposure(&exposure)
            .gate([forward()])
            .expect("valid");
        assert!(!plan.has_proposals());

        // ...but not once the run has read an item: the user's mail, written by another.
        let mut exposure = Exposure::new();
        let read = ToolCall::new("c1", "read_item", r#"{"id":3}"#);
        let plan = InboxTools::gate([read], Autonomy::Reversible).expect("valid");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let mut inbox = Inbox::sample();
        let report = runtime.block_on(InboxTools::apply(&mut inbox, &ToolContext::default(), plan));
        assert!(exposure.record(&report));
        let plan = Request::new(&policy)
            .exposure(&exposure)
            .gate([forward()])
            .expect("valid");
        let held = plan.proposals();
        assert_eq!(held.len(), 1);
        let reason = held[0].escalated_because().expect("a reason");
        assert!(
            reason.starts_with("this run has read private data (from read_item)"),
            "{reason}"
        );
    }

    #[test]
    fn a_change_is_recorded_before_it_is_made_and_not_made_when_it_cannot_be() {
        let dir = std::env::temp_dir().join(format!("inbox-change-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp dir");

        let log = dir.join("changes");
        let mut inbox = Inbox::sample().with_change_log(&log);
        assert_eq!(archive_3(&mut inbox), "archived item 3");
        assert_eq!(
            std::fs::read_to_string(&log).expect("the log"),
            "archive 3\n"
        );

        // A directory cannot be appended to: the change is refused, the item unchanged.
        let mut inbox = Inbox::sample().with_change_log(&dir);
        let refused = archive_3(&mut inbox);
        assert!(refused.contains("the change was not made"), "{refused}");
        assert!(!inbox.items[2].archived);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
