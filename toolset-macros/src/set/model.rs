//! The typed model of a checked set: what `valid` builds once every rule holds, and the
//! only thing `expand` reads.

use crate::case::camel_case;
use crate::runtime::Runtime;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Path, Type, Visibility};

/// A set whose entries are distinct and non-empty.
pub struct Set {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    /// `<State>`; `None` is `()`.
    pub state: Option<Type>,
    pub entries: Vec<Entry>,
    /// Where the generated code finds the runtime crate (`#[toolset(crate = "...")]`).
    pub runtime: Runtime,
}

/// One tool of the set.
pub struct Entry {
    /// The path as written (`set_due_date`, `tools::search`); generated code names the
    /// tool through it, spanned at it.
    pub path: Path,
    /// The variant of the set's call and name enums: `set_due_date` → `SetDueDate`.
    pub variant: Ident,
    /// The path as text, for docs and messages.
    pub written: String,
}

impl Entry {
    pub fn new(path: &Path) -> Entry {
        let last = path
            .segments
            .last()
            .map(|segment| camel_case(&segment.ident.to_string()))
            .unwrap_or_default();
        Entry {
            path: path.clone(),
            variant: format_ident!("{}", last, span = path.span()),
            written: quote!(#path).to_string().replace(' ', ""),
        }
    }
}
