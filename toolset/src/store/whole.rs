//! The bound for a store that keeps all a conversation keeps.

use super::journal::Journal;
use super::proposal_store::ProposalStore;
use super::runs::RunStore;

/// All a conversation keeps in one store: its proposals ([`ProposalStore`]), the effect
/// journal of its calls ([`Journal`]) and its saved runs ([`RunStore`]). The bound the
/// conversation driver ([`Driver`](crate::Driver)) and a host's own code name where a
/// store must keep all three; implemented for every type that implements them (this
/// crate's [`MemoryStore`](super::MemoryStore), `SqliteStore` and `PostgresStore`, or a
/// store of your own).
pub trait Store: ProposalStore + Journal + RunStore {}

impl<S: ProposalStore + Journal + RunStore + ?Sized> Store for S {}
