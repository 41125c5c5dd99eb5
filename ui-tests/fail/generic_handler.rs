use toolset::tool;

/// Echo the value back.
#[tool(tier = "read_only")]
pub async fn echo<T: serde::de::DeserializeOwned>(value: T) -> String {
    let _ = value;
    String::new()
}

fn main() {}
