use toolset::tool;

/// Search the inbox by free text.
#[tool(
    tier = "read_only",
    name = "search_the_inbox_by_free_text_and_return_every_matching_item_with_its_id"
)]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
