//! Why an MCP server's tools could not be had ([`McpSourceError`]) and why a changed tool
//! could not be accepted ([`AcceptError`]).

use crate::store::StoreError;
use std::fmt;

/// Why connecting to an MCP server failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpSourceError {
    /// The label is not `[a-z0-9]+`.
    BadLabel(String),
    /// The server could not be started or the MCP handshake failed.
    Connect(String),
    /// The server did not list its tools.
    List(String),
}

impl fmt::Display for McpSourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpSourceError::BadLabel(label) => write!(
                f,
                "the label {label:?} must be one or more lowercase letters or digits ([a-z0-9]+), \
                 so that `label_tool` splits one way only"
            ),
            McpSourceError::Connect(why) => write!(
                f,
                "could not connect to the MCP server ({why}); check its command or address"
            ),
            McpSourceError::List(why) => {
                write!(f, "the MCP server did not list its tools ({why})")
            }
        }
    }
}

impl std::error::Error for McpSourceError {}

/// Why [`McpTools::accept`](crate::toolbox::McpTools::accept) accepted nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum AcceptError {
    /// The namespace is not registered in a toolbox yet: nothing is pinned or withheld.
    NotRegistered,
    /// The tool is no longer withheld as the [`Drift`](crate::toolbox::Drift) says: it was accepted (here or by
    /// another replica), the server changed it again, or it is no longer listed.
    Stale(String),
    /// The store keeping the pins failed.
    Store(StoreError),
}

impl fmt::Display for AcceptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcceptError::NotRegistered => f.write_str(
                "the namespace is not registered in a toolbox yet, so nothing is withheld; \
                 add it with `Toolbox::with_namespace` first",
            ),
            AcceptError::Stale(tool) => write!(
                f,
                "the tool `{tool}` is no longer withheld as this drift says (it was accepted, \
                 changed again or removed); read `McpTools::drift()` again and review what it \
                 lists now"
            ),
            AcceptError::Store(error) => write!(f, "could not accept the tool: {error}"),
        }
    }
}

impl std::error::Error for AcceptError {}
