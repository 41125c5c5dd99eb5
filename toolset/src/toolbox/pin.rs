//! Pinned proxied tools, the defence against a server changing what a tool says it does
//! after the host approved it (a "rug pull"): each tool of an [`McpTools`](super::McpTools)
//! namespace is pinned by the fingerprint of its definition ([`ToolDefinition`]) when it
//! is first seen, and a listing whose definition of a tool differs from its pin withholds
//! that tool ([`Drift`]) until the host accepts the new definition.
//!
//! The pins live in a [`Store`] (the host's store, so replicas agree, or a
//! [`MemoryStore`](crate::MemoryStore) of the namespace's own); this file decides, for one
//! listing, which tools are offered and which are withheld, and writes the pins of tools
//! seen for the first time.

use crate::action_key::write_canonical;
use crate::digest::hex;
use crate::store::{Pin, Store, StoreError};
use rmcp::model::Tool;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The fields of a tool's definition that are pinned, as MCP spells them, in the order a
/// change names them.
pub const PINNED_FIELDS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// What a remote tool says it is, as pinned: its name, title, description, input and
/// output schemas and annotations ([`PINNED_FIELDS`], an absent one `null`), and the
/// fingerprint of that definition: the SHA-256 of its canonical JSON (members sorted, so
/// the order a server writes its keys in changes nothing), as lowercase hex.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    json: Value,
    fingerprint: String,
}

impl ToolDefinition {
    /// The definition of `tool` as a server lists it.
    pub fn of(tool: &Tool) -> ToolDefinition {
        let annotations = tool
            .annotations
            .as_ref()
            .map_or(Value::Null, |annotations| {
                // Plain fields of strings and booleans: this cannot fail, and if it ever did
                // the error text is pinned, so a change is still seen.
                serde_json::to_value(annotations).unwrap_or_else(|error| {
                    Value::String(format!("unreadable annotations: {error}"))
                })
            });
        let json = Value::Object(Map::from_iter([
            ("name".to_owned(), Value::String(tool.name.to_string())),
            (
                "title".to_owned(),
                tool.title.clone().map_or(Value::Null, Value::String),
            ),
            (
                "description".to_owned(),
                tool.description
                    .as_deref()
                    .map_or(Value::Null, |text| Value::String(text.to_owned())),
            ),
            (
                "inputSchema".to_owned(),
                Value::Object((*tool.input_schema).clone()),
            ),
            (
                "outputSchema".to_owned(),
                tool.output_schema
                    .as_ref()
                    .map_or(Value::Null, |schema| Value::Object((**schema).clone())),
            ),
            ("annotations".to_owned(), annotations),
        ]));
        ToolDefinition {
            fingerprint: fingerprint(&json),
            json,
        }
    }

    /// The definition a pin holds, with the pin's fingerprint (what listings are compared
    /// against). A definition that is not JSON reads as `null`: every field then differs.
    fn pinned(pin: &Pin) -> ToolDefinition {
        ToolDefinition {
            json: serde_json::from_str(&pin.definition).unwrap_or(Value::Null),
            fingerprint: pin.fingerprint.clone(),
        }
    }

    /// The definition as JSON: an object of the [`PINNED_FIELDS`].
    pub fn as_json(&self) -> &Value {
        &self.json
    }

    /// The fingerprint: the SHA-256 of the definition's canonical JSON, as lowercase hex.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The fields of [`PINNED_FIELDS`] whose values differ between `self` and `other`,
    /// compared as canonical JSON (key order does not count).
    pub fn changed_fields(&self, other: &ToolDefinition) -> Vec<&'static str> {
        PINNED_FIELDS
            .into_iter()
            .filter(|field| {
                let canonical = |definition: &ToolDefinition| {
                    let mut bytes = Vec::new();
                    write_canonical(
                        definition.json.get(field).unwrap_or(&Value::Null),
                        &mut bytes,
                    );
                    bytes
                };
                canonical(self) != canonical(other)
            })
            .collect()
    }

    /// The pin of this definition.
    fn pin(&self, tool: &str) -> Pin {
        Pin::new(tool, self.fingerprint.clone(), self.json.to_string())
    }
}

/// The SHA-256 of `definition`'s canonical JSON, as lowercase hex.
fn fingerprint(definition: &Value) -> String {
    let mut bytes = b"toolset pin v1\0".to_vec();
    write_canonical(definition, &mut bytes);
    hex(&Sha256::digest(&bytes))
}

/// A proxied tool withheld because its server's listing does not match its pin: changed
/// since the host accepted it, or (with [`McpTools::hold_new_tools`](super::McpTools::hold_new_tools))
/// new. It is not offered to the model and its calls are refused until the host accepts
/// it ([`McpTools::accept`](super::McpTools::accept)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Drift {
    /// The tool's name on its server.
    pub tool: String,
    /// Its name in the toolbox, the one the model would be offered.
    pub local: String,
    /// The definition the host accepted; `None` for a new tool held.
    pub pinned: Option<ToolDefinition>,
    /// The definition the server lists now.
    pub listed: ToolDefinition,
    /// The fields that differ ([`PINNED_FIELDS`]); every field for a new tool.
    pub changed: Vec<&'static str>,
}

impl Drift {
    fn new(tool: &Tool, local: String, pinned: Option<ToolDefinition>) -> Drift {
        let listed = ToolDefinition::of(tool);
        let changed = match &pinned {
            Some(pinned) => pinned.changed_fields(&listed),
            None => PINNED_FIELDS.to_vec(),
        };
        Drift {
            tool: tool.name.to_string(),
            local,
            pinned,
            listed,
            changed,
        }
    }

    /// Whether the tool is new (no pin), rather than changed.
    pub fn is_new(&self) -> bool {
        self.pinned.is_none()
    }
}

/// Which tools of `listed` (by their name on the server) are withheld, against the pins
/// of `source` in `store`: a tool with a pin whose fingerprint differs, and with
/// `hold_new`, a tool without one once the source has pins. Every other tool without a
/// pin is pinned now (the first writer wins: a tool another replica pinned first is
/// compared against its pin). `local` names a tool in the toolbox.
pub(super) fn withheld(
    store: &dyn Store,
    source: &str,
    listed: &[Tool],
    hold_new: bool,
    local: impl Fn(&str) -> String,
) -> Result<Vec<Drift>, StoreError> {
    let by_tool = || -> Result<HashMap<String, Pin>, StoreError> {
        let pins = store.pins(source)?.into_iter();
        Ok(pins.map(|pin| (pin.tool.clone(), pin)).collect())
    };
    let mut pins = by_tool()?;
    let first_listing = pins.is_empty();
    let mut drift = Vec::new();
    for tool in listed {
        let name = tool.name.as_ref();
        let definition = ToolDefinition::of(tool);
        if !pins.contains_key(name) {
            if hold_new && !first_listing {
                drift.push(Drift::new(tool, local(name), None));
                continue;
            }
            if store.pin(source, &definition.pin(name), None)? {
                continue;
            }
            // Someone pinned it first: read their pin.
            pins = by_tool()?;
        }
        match pins.get(name) {
            Some(pin) if pin.fingerprint == definition.fingerprint => {}
            pinned => drift.push(Drift::new(
                tool,
                local(name),
                pinned.map(ToolDefinition::pinned),
            )),
        }
    }
    Ok(drift)
}

/// Pins `drift.listed` for its tool in place of `drift.pinned`: `false` when the stored
/// pin is no longer the one the drift was read against.
pub(super) fn accept(store: &dyn Store, source: &str, drift: &Drift) -> Result<bool, StoreError> {
    let replacing = drift.pinned.as_ref().map(ToolDefinition::fingerprint);
    store.pin(source, &drift.listed.pin(&drift.tool), replacing)
}
