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
//! `PinStore` is a trait of its own beside [`ProposalStore`](super::ProposalStore),
//! [`Journal`](super::Journal) and [`RunStore`](super::RunStore), implemented by the same
//! three stores (the table `toolset_pins` in the database stores).

use super::StoreError;

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

/// Where the pins of proxied tools are kept, each written only over the fingerprint its
/// writer read. Implemented by [`MemoryStore`](super::MemoryStore), and with their
/// features `SqliteStore` and `PostgresStore`; each write is atomic, across processes for
/// the database stores.
///
/// Blocking calls, like [`ProposalStore`](super::ProposalStore)'s.
pub trait PinStore: Send + Sync {
    /// Every pin of the source `source`, in no particular order.
    fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError>;

    /// Stores `pin` for the tool `pin.tool` of `source`, atomically, if the tool's pin is
    /// `replacing` now: `None`, the tool must have no pin yet; `Some(fingerprint)`, its
    /// pin must have that fingerprint. `true` when it was stored; `false` when the stored
    /// pin is another (someone else pinned or accepted first), and nothing changed.
    fn pin(&self, source: &str, pin: &Pin, replacing: Option<&str>) -> Result<bool, StoreError>;
}

impl<P: PinStore + ?Sized> PinStore for &P {
    fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError> {
        (**self).pins(source)
    }
    fn pin(&self, source: &str, pin: &Pin, replacing: Option<&str>) -> Result<bool, StoreError> {
        (**self).pin(source, pin, replacing)
    }
}

impl<P: PinStore + ?Sized> PinStore for std::sync::Arc<P> {
    fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError> {
        (**self).pins(source)
    }
    fn pin(&self, source: &str, pin: &Pin, replacing: Option<&str>) -> Result<bool, StoreError> {
        (**self).pin(source, pin, replacing)
    }
}
