//! Where saved runs wait between requests: the store side of [`Run`](crate::run::Run), one
//! row per run, written with a compare-and-set on its generation.
//!
//! A store keeps each run's newest copy as text (the run's JSON, exactly as
//! [`Runs`](crate::run::Runs) wrote it), its seal (when the runs are sealed) and its
//! *generation*, the number every save and every resume raises by one. A write names the
//! generation it expects to replace, and is refused when the stored one is any other: of
//! two processes that loaded the same copy, one writes and the other is told the run
//! moved on ([`SaveRunOutcome::Conflict`]); a copy older than the stored one can never
//! overwrite it. [`Runs`](crate::run::Runs) turns that into "resumed twice" and "stale copy"
//! refusals, and checks the seal.
//!
//! Apart from the row, a store keeps each run's *mark*: the highest generation it ever
//! saved of the run, raised in the same transaction as each save and never lowered (the
//! table `toolset_run_marks` in the database stores). A row put back whole (an old copy
//! with its old seal and its old generation, which the seal cannot tell from the real
//! thing) sits below the mark: [`Runs`](crate::run::Runs) refuses it as rolled back, and the
//! store refuses any save that would not raise the mark.
//!
//! The runs' methods are [`Store`](super::Store)'s, beside the proposals' and the
//! journal's (the table `toolset_runs` in the database stores): one store keeps a
//! conversation's proposals, the calls they became and the run waiting on them.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use super::StoreError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The id of a [`Run`](crate::run::Run): 128 random bits from the operating system as 32
/// lowercase hex digits ([`RunId::random`]), or a host's own conversation id
/// ([`RunId::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
    /// A new unguessable id.
    pub fn random() -> RunId {
        RunId(crate::digest::random_hex::<16>("a run id"))
    }

    /// An id as text: 1 to 128 ASCII letters, digits, `-`, `_`, `.` or `:` (what
    /// [`Display`](fmt::Display) prints, or a host's own conversation id). `None` for
    /// anything else.
    pub fn parse(text: &str) -> Option<RunId> {
        let valid = (1..=128).contains(&text.len())
            && text
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-_.:".contains(&byte));
        valid.then(|| RunId(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for RunId {
    type Error = String;

    fn try_from(text: String) -> Result<RunId, String> {
        RunId::parse(&text).ok_or_else(|| format!("`{text}` is not a run id"))
    }
}

impl From<RunId> for String {
    fn from(id: RunId) -> String {
        id.0
    }
}

/// A run as a store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredRun {
    /// The run's id.
    pub id: RunId,
    /// How many times it was saved or resumed: 1 for its first save.
    pub generation: u64,
    /// The run as JSON, exactly as it was written (its seal covers these bytes).
    pub run: String,
    /// Its seal, when the runs are sealed ([`Runs::sealed_with`](crate::run::Runs::sealed_with)).
    pub seal: Option<String>,
}

impl StoredRun {
    /// A copy of run `id` at `generation`, its JSON `run` and its `seal`.
    pub fn new(id: RunId, generation: u64, run: String, seal: Option<String>) -> StoredRun {
        StoredRun {
            id,
            generation,
            run,
            seal,
        }
    }

    /// A copy read from a database row, whose generation column is signed: a negative one
    /// is an error naming the run.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn from_row(
        id: &RunId,
        generation: i64,
        run: String,
        seal: Option<String>,
    ) -> Result<StoredRun, StoreError> {
        let generation = u64::try_from(generation)
            .map_err(|_| StoreError::new(format!("the run {id} holds a negative generation")))?;
        Ok(StoredRun::new(id.clone(), generation, run, seal))
    }
}

/// A run's mark read from a database row, whose column is signed: a negative one is an
/// error naming the run.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn mark_from_row(id: &RunId, mark: Option<i64>) -> Result<Option<u64>, StoreError> {
    mark.map(|mark| {
        u64::try_from(mark)
            .map_err(|_| StoreError::new(format!("the run {id} holds a negative mark")))
    })
    .transpose()
}

/// What [`Store::save_run`](super::Store::save_run) did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaveRunOutcome {
    /// The copy is stored; it replaced the generation the write expected.
    Saved,
    /// The stored generation is not the one the write expected (`None`: no copy of the run
    /// is stored): nothing changed.
    Conflict {
        /// The generation stored now; `None` when the store has no copy of the run.
        stored: Option<u64>,
    },
}
