//! The input schema `#[tool]` lists for a handler's arguments (issue 40: a `JsonSchema`
//! impl naming one `Argument` per field, built by the library, in place of schemars'
//! derive and its per-field shim) is the schema schemars' derive writes for the same
//! fields: checked against a struct deriving it, over doc comments with a `#` title,
//! several lines and blank lines, `Option`s first and last, a raw identifier, a
//! `$ref`-ed type, an undocumented field, and a handler with no argument at all.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use toolset::prelude::*;
use toolset::schema::input_schema_for;
use toolset::{tool, toolset};

/// The state: none is needed.
pub struct Nothing;

/// A place, behind a `$ref`.
#[derive(Deserialize, JsonSchema)]
pub struct Place {
    /// The folder.
    pub folder: String,
}

/// Files a note.
#[tool(tier = "reversible")]
pub async fn file_note(
    _state: &mut Nothing,
    /// An optional first field.
    first: Option<u8>,
    /// # The title line
    /// and the description under it,
    ///
    /// over two paragraphs.
    title: String,
    r#type: u64,
    /// Where it goes.
    place: Place,
    ///   indented, with `code` and trailing spaces   
    nested: Option<Vec<Place>>,
    /**
     A block comment.
    */
    last: Option<bool>,
) -> String {
    let _ = (first, title, r#type, place, nested, last);
    String::new()
}

/// What schemars' derive writes for the same fields under the attributes the derive path
/// of `#[tool]` gives them.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct FileNoteReference {
    /// An optional first field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first: Option<u8>,
    /// # The title line
    /// and the description under it,
    ///
    /// over two paragraphs.
    title: String,
    r#type: u64,
    /// Where it goes.
    place: Place,
    ///   indented, with `code` and trailing spaces   
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nested: Option<Vec<Place>>,
    /**
     A block comment.
    */
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last: Option<bool>,
}

/// Takes nothing the model sends.
#[tool(tier = "read_only")]
pub async fn ping(_state: &Nothing) -> String {
    String::new()
}

/// No field.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingReference {}

toolset! {
    /// The tools under test.
    pub Notes<Nothing> = [file_note, ping];
}

fn listed(name: &str) -> &'static Value {
    Notes::specs()
        .iter()
        .find(|spec| spec.name() == name)
        .expect("the tool is in the set")
        .input_schema()
}

#[test]
fn a_listed_schema_is_what_schemars_derive_writes_for_the_same_fields() {
    assert_eq!(
        listed("file_note"),
        &input_schema_for::<FileNoteReference>()
    );
    // The `#` line became a title, the `Option`s are left out of `required`, the
    // raw identifier is named without `r#`, and the `$ref`'s target is in `$defs`.
    let schema = listed("file_note");
    assert_eq!(schema["properties"]["title"]["title"], "The title line");
    assert_eq!(
        schema["required"],
        serde_json::json!(["title", "type", "place"])
    );
    assert!(schema["$defs"]["Place"].is_object(), "{schema:#}");
}

#[test]
fn a_handler_without_arguments_lists_the_empty_object_schemars_derive_writes() {
    assert_eq!(listed("ping"), &input_schema_for::<PingReference>());
}
