#![deny(warnings)]
//! Every return form: `()`, `String`, `&'static str`, `Json<T>`, `ToolOutput`,
//! `Result<T, ToolError>`, and `Result<T, E>` with `E: Display` (a std error or the
//! user's own), with `?` inside; an error type that is not `Display` converts with `?`
//! into `ToolError`. (`error_text.rs` has the errors that are just text.)

use schemars::JsonSchema;
use serde::Serialize;
use toolset::prelude::*;
use toolset::{Json, ToolError, ToolOutput, tool, toolset};

/// Returns nothing.
#[tool(tier = "reversible")]
pub async fn unit() {}

/// Returns nothing, spelled out.
#[tool(tier = "reversible")]
pub async fn unit_spelled() -> () {}

/// Returns text.
#[tool(tier = "read_only")]
pub async fn text() -> String {
    "text".to_owned()
}

/// Returns static text.
#[tool(tier = "read_only")]
pub async fn static_text() -> &'static str {
    "static"
}

/// A structured result.
#[derive(Serialize, JsonSchema)]
pub struct Count {
    /// How many.
    pub n: u32,
}

/// Returns structured JSON.
#[tool(tier = "read_only")]
pub async fn json() -> Json<Count> {
    Json(Count { n: 1 })
}

/// Returns a full output.
#[tool(tier = "read_only")]
pub async fn output() -> ToolOutput {
    ToolOutput::text("out").with_image("aGk=", "image/png")
}

/// Fails with a tool error, or skips.
#[tool(tier = "reversible")]
pub async fn fallible(skip: bool) -> Result<String, ToolError> {
    if skip {
        return Err(ToolError::skipped("nothing to do"));
    }
    Ok("done".to_owned())
}

/// `?` on a std error inside a `Result<_, ToolError>` handler.
#[tool(tier = "read_only")]
pub async fn parse(number: String) -> Result<Json<i64>, ToolError> {
    Ok(Json(number.parse::<i64>()?))
}

/// Returns a std error type directly.
#[tool(tier = "read_only")]
pub async fn parse_std(number: String) -> Result<String, std::num::ParseIntError> {
    Ok((number.parse::<i64>()? * 2).to_string())
}

/// The user's own error type.
#[derive(Debug)]
pub enum InboxError {
    /// No such item.
    Missing(u32),
}

impl From<InboxError> for ToolError {
    fn from(error: InboxError) -> Self {
        match error {
            InboxError::Missing(id) => ToolError::failed(format!("no item {id}")),
        }
    }
}

fn find(id: u32) -> Result<(), InboxError> {
    if id == 0 {
        return Err(InboxError::Missing(id));
    }
    Ok(())
}

/// The user's own error type, which is not `Display`, converted with `?`.
#[tool(tier = "reversible")]
pub async fn custom(id: u32) -> Result<(), ToolError> {
    Ok(find(id)?)
}

toolset! {
    /// Tools with every return form.
    pub Tools = [unit, unit_spelled, text, static_text, json, output, fallible, parse, parse_std, custom];
}

pub fn main() {
    assert!(
        Tools::spec("json")
            .expect("declared")
            .output_schema()
            .is_some()
    );
    assert!(
        Tools::spec("parse")
            .expect("declared")
            .output_schema()
            .is_some()
    );
    assert!(
        Tools::spec("text")
            .expect("declared")
            .output_schema()
            .is_none()
    );
}
