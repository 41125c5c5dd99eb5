//! Where the pins of proxied tools are kept: the store side of pinning (see
//! `toolbox/pin.rs`), one row per tool of a source, written with a compare-and-set on its
//! fingerprint.
//!
//! A pin is the definition of a remote tool the host accepted (its name, title,
//! description, schemas and annotations, as JSON) and that definition's fingerprint.
//! Pins are keyed by the source (a `toolbox::McpTools` namespace's
//! label) and the tool's name on its server, so every process and replica sharing a store
//! compares a server's listing against the same pins: the first to see a tool pins it,
//! and a replica started after a server changed a tool withholds the change as the others
//! do. Pins are never removed: a tool that disappears and comes back changed is a change.
//!
//! The pins' methods are [`Store`](super::Store)'s ([`Store::pins`](super::Store::pins),
//! [`Store::pin`](super::Store::pin)), beside the proposals', the journal's and the runs'
//! (the table `toolset_pins` in the database stores).

/// A proxied tool's accepted definition and its fingerprint, as a store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pin {
    /// The tool's name on its server.
    pub tool: String,
    /// The SHA-256 of the definition's canonical JSON, as lowercase hex.
    pub fingerprint: String,
    /// The accepted definition, as JSON text.
    pub definition: String,
}

impl Pin {
    /// The pin of `tool`, whose accepted `definition` (JSON text) has `fingerprint`.
    pub fn new(
        tool: impl Into<String>,
        fingerprint: impl Into<String>,
        definition: impl Into<String>,
    ) -> Pin {
        Pin {
            tool: tool.into(),
            fingerprint: fingerprint.into(),
            definition: definition.into(),
        }
    }
}
