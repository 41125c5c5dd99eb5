//! What a run has read: the memory of the gate's lethal-trifecta rule.
//!
//! An agent that has read the user's private data and content others wrote, and can send
//! data out, can be talked by that content into sending the one out through the other.
//! Tools declare what they touch ([`Labels`]: `#[tool(reads = "...", sends = "...")]`, or a
//! runtime tool's host); an [`Exposure`] records which kinds a run's calls have read: every
//! call whose own text reached the model, its output or its handler's failure, retry hint or
//! skip reason alike ([`Outcome::carries_tool_text`]), and never a proposal, a refused, timed
//! out, cancelled or panicked call (the model read only toolset's words about those).
//! The one gate ([`Request::gate`](crate::request::Request::gate), given the run's exposure by
//! [`Request::exposure`](crate::request::Request::exposure)) holds back a call that sends outside
//! once both kinds were read.

use crate::outcome::Outcome;
use crate::report::Report;
use crate::spec::Labels;
use serde::{Deserialize, Serialize};

/// Which kinds of content a run has read, and from which tools: the private data of the
/// user, and untrusted content (written by others).
///
/// The host keeps one per run (or conversation: as long as what was read stays in the
/// model's context), serializes it with the run, hands it to every
/// [`Request`](crate::request::Request) by [`Request::exposure`](crate::request::Request::exposure) and
/// updates it after each applied plan with [`record`](Self::record), as it does
/// [`Activations`](crate::request::Activations). The MCP server keeps one per session.
///
/// Serialized as `{"private_from":[...],"untrusted_from":[...]}` (the tool names, in the
/// order they first read each kind; an empty list is left out).
///
/// ```
/// use toolset::run::Exposure;
/// use toolset::Labels;
///
/// let mut exposure = Exposure::new();
/// exposure.read("read_inbox", Labels::NONE.reading_private());
/// assert!(!exposure.is_exposed());
/// exposure.read("fetch_page", Labels::NONE.reading_untrusted());
/// assert!(exposure.is_exposed());
/// assert_eq!(exposure.private_from(), ["read_inbox"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exposure {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    private_from: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    untrusted_from: Vec<String>,
}

/// Adds `name` to `names` once; whether it was new.
fn once(names: &mut Vec<String>, name: &str) -> bool {
    if names.iter().any(|known| known == name) {
        return false;
    }
    names.push(name.to_owned());
    true
}

impl Exposure {
    /// Nothing read yet.
    pub fn new() -> Self {
        Exposure::default()
    }

    /// Records that a call to `tool`, labelled `labels`, ran and its output entered the
    /// run. Returns whether the exposure grew (a tool new to a kind).
    pub fn read(&mut self, tool: &str, labels: Labels) -> bool {
        let mut grew = false;
        if labels.reads_private() {
            grew |= once(&mut self.private_from, tool);
        }
        if labels.reads_untrusted() {
            grew |= once(&mut self.untrusted_from, tool);
        }
        grew
    }

    /// Records what the calls of `report` brought into the run, by their tools' labels:
    /// every call whose own text the model reads ([`Outcome::carries_tool_text`]), so a
    /// read that fails with the untrusted source's words counts as a read that succeeded.
    /// A proposed, refused, timed out, cancelled or panicked call brought nothing in.
    /// Returns whether the exposure grew.
    pub fn record(&mut self, report: &Report) -> bool {
        let mut grew = false;
        for entry in report.entries() {
            if entry
                .outcome
                .as_ref()
                .is_some_and(Outcome::carries_tool_text)
            {
                grew |= self.read(&entry.call.name, entry.labels);
            }
        }
        grew
    }

    /// Whether the run has read the user's private data.
    pub fn has_read_private(&self) -> bool {
        !self.private_from.is_empty()
    }

    /// Whether the run has read content others wrote.
    pub fn has_read_untrusted(&self) -> bool {
        !self.untrusted_from.is_empty()
    }

    /// Whether the run has read both: a call that sends outside is held back now.
    pub fn is_exposed(&self) -> bool {
        self.has_read_private() && self.has_read_untrusted()
    }

    /// The tools whose calls brought private data in, in the order they first did.
    pub fn private_from(&self) -> &[String] {
        &self.private_from
    }

    /// The tools whose calls brought untrusted content in, in the order they first did.
    pub fn untrusted_from(&self) -> &[String] {
        &self.untrusted_from
    }
}
