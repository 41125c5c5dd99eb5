use toolset::tool;

/// Read an email.
#[tool(tier = "read_only", reads = "private, untrusted, private")]
pub async fn read_mail() -> String {
    String::new()
}

fn main() {}
