use toolset::tool;

/// Read the user's inbox.
#[tool(tier = "read_only", reads = "privat")]
pub async fn read_inbox() -> String {
    String::new()
}

/// Send an email.
#[tool(tier = "external_reversible", sends = "internet")]
pub async fn send_email(to: String) -> String {
    to
}

fn main() {}
