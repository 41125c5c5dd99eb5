use toolset::tool;

/// Read a web page: `reads` names labels, not none.
#[tool(tier = "read_only", reads = "")]
pub async fn fetch_page(url: String) -> String {
    url
}

/// Read a page: a trailing comma leaves an empty label.
#[tool(tier = "read_only", reads = "untrusted,")]
pub async fn read_page(url: String) -> String {
    url
}

fn main() {}
