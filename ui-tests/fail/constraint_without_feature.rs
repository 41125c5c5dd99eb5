use toolset::tool;

/// Search the notes.
#[tool(tier = "read_only")]
pub async fn search(
    /// How many notes to return at most.
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
    /// Only notes with every one of these tags.
    #[schemars(inner(length(max = 20)))]
    tags: Vec<String>,
) -> String {
    format!("{limit} {tags:?}")
}

fn main() {}
