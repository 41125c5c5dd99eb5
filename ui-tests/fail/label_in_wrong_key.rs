use toolset::tool;

/// Send an email: `outside` is where a tool sends, not what it reads.
#[tool(tier = "external_reversible", reads = "outside")]
pub async fn send_email(to: String) -> String {
    to
}

fn main() {}
