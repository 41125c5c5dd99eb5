use toolset::tool;

/// Search the notes.
#[tool(tier = "read_only")]
pub async fn search(
    /// How many notes to return at most.
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
) -> String {
    limit.to_string()
}

fn main() {}
