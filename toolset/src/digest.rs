//! What a human's approval is bound to: a fingerprint of the set, a digest of the
//! reviewed proposal, and an optional HMAC-SHA256 seal with a host secret.
//!
//! The set fingerprint hashes every spec the model and the human rely on (names, tiers,
//! propose-only flags, titles, descriptions, input schemas in canonical JSON), so a
//! proposal made by another set that happens to share the name, or by this set before its
//! tools changed, does not match. The digest hashes every field of a proposal a human can
//! be shown: set name and fingerprint, call id, tool, the arguments (canonical, and as the
//! exact text shown), tier, the escalation's reason and the propose-only flag. The seal
//! adds the id and the times, so nothing a reviewer reads is outside it.

use crate::action_key::write_canonical;
use crate::call::Caller;
use crate::call::ToolCall;
use crate::set::ToolSet;
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// `N` random bytes from the operating system, for `what` (an id, a key, a secret).
/// Without the OS's randomness none of them would be unguessable: it fails closed, loudly,
/// naming `what`.
pub(crate) fn random<const N: usize>(what: &str) -> [u8; N] {
    let mut bytes = [0u8; N];
    if let Err(error) = getrandom::fill(&mut bytes) {
        panic!("the operating system gave no randomness for {what}: {error}");
    }
    bytes
}

/// `N` random bytes for `what` ([`random`]) as `2 * N` lowercase hex digits.
pub(crate) fn random_hex<const N: usize>(what: &str) -> String {
    hex(&random::<N>(what))
}

/// Bytes as lowercase hex. (Two table lookups a byte: `format!` per byte cost a journal key
/// more than its SHA-256.)
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The fingerprint of the set `T`, as lowercase hex; computed once per set and process.
pub(crate) fn set_fingerprint<T: ToolSet>() -> String {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let cached = cache
        .lock()
        .ok()
        .and_then(|map| map.get(&TypeId::of::<T>()).cloned());
    if let Some(fingerprint) = cached {
        return fingerprint;
    }
    let mut hasher = Sha256::new();
    // v2: titles are hashed too (a reviewer is shown them).
    hasher.update(b"toolset set v2\0");
    hasher.update(T::NAME.as_bytes());
    for spec in T::specs() {
        let mut schema = Vec::new();
        write_canonical(spec.input_schema(), &mut schema);
        let title = spec.title().map_or(Vec::new(), |title| {
            let mut part = b"t".to_vec();
            part.extend_from_slice(title.as_bytes());
            part
        });
        for part in [
            spec.name().as_bytes(),
            spec.tier().as_str().as_bytes(),
            if spec.is_propose_only() { b"p" } else { b"r" },
            &title,
            spec.description().as_bytes(),
            &schema,
        ] {
            hasher.update(b"\0");
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
    }
    let fingerprint = hex(&hasher.finalize());
    if let Ok(mut map) = cache.lock() {
        map.insert(TypeId::of::<T>(), fingerprint.clone());
    }
    fingerprint
}

/// What a human reviews of a proposal, besides its id and times (which the seal covers):
/// every part of it the digest hashes.
pub(crate) struct Reviewed<'a> {
    pub(crate) set: &'a str,
    pub(crate) fingerprint: &'a str,
    pub(crate) call: &'a ToolCall,
    pub(crate) tier: &'a str,
    pub(crate) escalation: Option<&'a str>,
    pub(crate) propose_only: bool,
}

/// The digest of what a human reviews, as lowercase hex. Every part is length-prefixed,
/// so no two different proposals share an encoding.
pub(crate) fn proposal_digest(reviewed: &Reviewed<'_>) -> String {
    let Reviewed {
        set,
        fingerprint,
        call,
        tier,
        escalation,
        propose_only,
    } = reviewed;
    // Destructured, so a field added to the call is a compile error here until it is
    // either hashed or said not to be shown.
    let ToolCall {
        id,
        name: _, // in the action key
        arguments,
        caller,
    } = call;
    let mut hasher = Sha256::new();
    // v2: the escalation's reason and the exact argument text are hashed too (stored
    // proposals of v1 no longer verify: they are refused, never trusted).
    hasher.update(b"toolset proposal v2");
    let action = call.action_key();
    // "-" for no escalation, "+reason" for one: no reason is not the empty reason.
    let escalation = escalation.map_or(b"-".to_vec(), |reason| {
        let mut part = b"+".to_vec();
        part.extend_from_slice(reason.as_bytes());
        part
    });
    for part in [
        set.as_bytes(),
        fingerprint.as_bytes(),
        id.as_bytes(),
        tier.as_bytes(),
        &escalation,
        if *propose_only { b"p" } else { b"r" },
        &action,
        arguments.text().as_bytes(),
    ] {
        hasher.update(b"\0");
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    // A call from code hashes its caller after the v2 parts: a direct call's digest is
    // v2's, unchanged (stored proposals keep verifying), and a call from code can never
    // pass for a direct one, nor one code's call for another's.
    if let Caller::Code { kind, id } = caller {
        for part in [b"code".as_slice(), kind.as_bytes(), id.as_bytes()] {
            hasher.update(b"\0");
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
    }
    hex(&hasher.finalize())
}

/// A host secret that seals proposals (HMAC-SHA256), so that one that travelled through
/// or rested in a place others can write (a shared database, a browser round trip) cannot
/// be altered or forged: an unsealed or wrongly sealed proposal is refused at approval.
///
/// Use one whenever someone other than this process can write where proposals wait. Keep
/// it out of that place, and rotate it like any secret (proposals sealed with an old key
/// are refused). Without a key the store is trusted as it is.
#[derive(Clone)]
pub struct SealKey(Vec<u8>);

impl SealKey {
    /// A key from secret bytes; at least 32 of them (HMAC-SHA256's block of entropy).
    pub fn new(secret: impl Into<Vec<u8>>) -> Result<SealKey, SealKeyTooShort> {
        let secret = secret.into();
        if secret.len() < 32 {
            return Err(SealKeyTooShort(secret.len()));
        }
        Ok(SealKey(secret))
    }

    /// An HMAC under this key that has read `domain` first: what one use of the key
    /// seals can never pass for another's.
    fn keyed(&self, domain: &[u8]) -> Hmac {
        // `new_from_slice` accepts any key length for HMAC.
        let mut mac = <Hmac as KeyInit>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(domain);
        mac
    }

    fn mac(&self, id: &str, digest: &str, created_ms: u64, expires_ms: Option<u64>) -> Hmac {
        let mut mac = self.keyed(b"toolset seal v1");
        for part in [
            id.as_bytes(),
            digest.as_bytes(),
            &created_ms.to_be_bytes(),
            &expires_ms.map_or([0xff; 8], u64::to_be_bytes),
        ] {
            mac.update(b"\0");
            mac.update(part);
        }
        mac
    }

    /// A key of its own for another use of this secret (`purpose` names it), derived by
    /// HMAC-SHA256: what is sealed with it can never pass for a proposal's seal, nor the
    /// other way round.
    #[cfg(feature = "mcp")]
    pub(crate) fn derived(&self, purpose: &str) -> Vec<u8> {
        let mut mac = self.keyed(b"toolset derived key v1\0");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// The seal of a proposal's id, digest and times, as lowercase hex.
    pub(crate) fn seal(
        &self,
        id: &str,
        digest: &str,
        created_ms: u64,
        expires_ms: Option<u64>,
    ) -> String {
        hex(&self
            .mac(id, digest, created_ms, expires_ms)
            .finalize()
            .into_bytes())
    }

    /// Whether `seal` is this key's seal of those fields (compared in constant time).
    pub(crate) fn verifies(
        &self,
        seal: &str,
        id: &str,
        digest: &str,
        created_ms: u64,
        expires_ms: Option<u64>,
    ) -> bool {
        let Some(bytes) = unhex(seal) else {
            return false;
        };
        self.mac(id, digest, created_ms, expires_ms)
            .verify_slice(&bytes)
            .is_ok()
    }

    /// The MAC of a saved run: its id and its JSON, exactly as stored, under a domain of
    /// its own (no run's seal is a proposal's, nor the other way round).
    fn run_mac(&self, id: &str, run: &str) -> Hmac {
        let mut mac = self.keyed(b"toolset run seal v1");
        for part in [id.as_bytes(), run.as_bytes()] {
            mac.update(b"\0");
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac
    }

    /// The seal of the run `id` saved as the JSON `run`, as lowercase hex.
    pub(crate) fn seal_run(&self, id: &str, run: &str) -> String {
        hex(&self.run_mac(id, run).finalize().into_bytes())
    }

    /// Whether `seal` is this key's seal of the run `id` saved as `run` (constant time).
    pub(crate) fn verifies_run(&self, seal: &str, id: &str, run: &str) -> bool {
        let Some(bytes) = unhex(seal) else {
            return false;
        };
        self.run_mac(id, run).verify_slice(&bytes).is_ok()
    }
}

type Hmac = hmac::Hmac<Sha256>;

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealKey(<secret>)")
    }
}

/// A seal key shorter than 32 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealKeyTooShort(usize);

impl fmt::Display for SealKeyTooShort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a seal key needs at least 32 secret bytes, got {}: generate one with a CSPRNG",
            self.0
        )
    }
}

impl std::error::Error for SealKeyTooShort {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_writes_every_byte_as_two_lowercase_digits() {
        let bytes: Vec<u8> = (0..=255).collect();
        let expected: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(hex(&bytes), expected);
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn a_seal_verifies_only_the_fields_it_sealed() {
        let key = SealKey::new([7u8; 32]).unwrap();
        let seal = key.seal("id", "digest", 1, Some(2));
        assert!(key.verifies(&seal, "id", "digest", 1, Some(2)));
        assert!(!key.verifies(&seal, "id", "digest", 1, None));
        assert!(!key.verifies(&seal, "id", "other", 1, Some(2)));
        let other = SealKey::new([8u8; 32]).unwrap();
        assert!(!other.verifies(&seal, "id", "digest", 1, Some(2)));
        assert!(!key.verifies("zz", "id", "digest", 1, Some(2)));
        assert!(SealKey::new(*b"short").is_err());
    }

    fn digest(call: &ToolCall, change: impl FnOnce(&mut Reviewed<'_>)) -> String {
        let mut reviewed = Reviewed {
            set: "Set",
            fingerprint: "f",
            call,
            tier: "irreversible",
            escalation: Some("outside the company"),
            propose_only: false,
        };
        change(&mut reviewed);
        proposal_digest(&reviewed)
    }

    #[test]
    fn the_digest_changes_with_each_reviewed_part() {
        let call = ToolCall::new("c1", "delete", r#"{"key":"a"}"#);
        let base = digest(&call, |_| {});
        assert_eq!(
            base,
            digest(&call.clone(), |_| {}),
            "a digest is a function"
        );
        let others = [
            ToolCall::new("c2", "delete", r#"{"key":"a"}"#),
            ToolCall::new("c1", "remove", r#"{"key":"a"}"#),
            ToolCall::new("c1", "delete", r#"{"key":"b"}"#),
            // The same meaning in other characters is not the text the human read.
            ToolCall::new("c1", "delete", r#"{ "key" : "a" }"#),
            ToolCall::new("c1", "delete", r#"{"key":"\u0061"}"#),
            // Made by code, or by other code: not the call the human was shown.
            call.clone().with_caller(crate::call::Caller::code(
                "code_execution_20260120",
                "srvtoolu_1",
            )),
            call.clone().with_caller(crate::call::Caller::code(
                "code_execution_20260120",
                "srvtoolu_2",
            )),
            call.clone()
                .with_caller(crate::call::Caller::code("program", "srvtoolu_1")),
        ];
        for other in &others {
            assert_ne!(base, digest(other, |_| {}), "{other:?}");
        }
        let changes: [fn(&mut Reviewed<'_>); 7] = [
            |r| r.set = "Other",
            |r| r.fingerprint = "g",
            |r| r.tier = "reversible",
            |r| r.escalation = Some("our auditor; routine"),
            |r| r.escalation = None,
            |r| r.escalation = Some(""),
            |r| r.propose_only = true,
        ];
        let mut seen = std::collections::HashSet::from([base]);
        for change in changes {
            assert!(
                seen.insert(digest(&call, change)),
                "two parts share a digest"
            );
        }
        assert_ne!(
            digest(&call, |r| r.escalation = None),
            digest(&call, |r| r.escalation = Some("")),
            "no reason is not an empty reason"
        );
    }
}
