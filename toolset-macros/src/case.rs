//! Case conversion between what the user writes and what is generated: a struct tool's
//! CamelCase identifier to the snake_case name the model sees, and a fn's snake_case
//! identifier to the CamelCase variant of the set's enums.

/// `SendReply` → `send_reply`, `HTTPRequest` → `http_request`, `Utf8Text` → `utf8_text`.
pub fn snake_case(ident: &str) -> String {
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let after_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            // The last capital of an acronym starts the next word: `HTTPRequest`.
            let acronym_end = i > 0
                && chars[i - 1].is_uppercase()
                && chars.get(i + 1).is_some_and(|next| next.is_lowercase());
            if after_lower || acronym_end {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `set_due_date` → `SetDueDate`; a raw identifier's `r#` is dropped.
pub fn camel_case(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    ident
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_words_at_capitals() {
        assert_eq!(snake_case("SendReply"), "send_reply");
        assert_eq!(snake_case("Search"), "search");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn snake_case_keeps_an_acronym_one_word() {
        assert_eq!(snake_case("HTTPRequest"), "http_request");
        assert_eq!(snake_case("GetURL"), "get_url");
    }

    #[test]
    fn snake_case_starts_a_word_after_a_digit() {
        assert_eq!(snake_case("Utf8Text"), "utf8_text");
    }

    #[test]
    fn camel_case_capitalizes_each_word() {
        assert_eq!(camel_case("set_due_date"), "SetDueDate");
        assert_eq!(camel_case("search"), "Search");
        assert_eq!(camel_case("read_only"), "ReadOnly");
    }

    #[test]
    fn camel_case_drops_raw_prefixes_and_stray_underscores() {
        assert_eq!(camel_case("r#type"), "Type");
        assert_eq!(camel_case("_private__tool_"), "PrivateTool");
    }

    #[test]
    fn the_two_conversions_round_trip_for_plain_names() {
        for name in ["send_reply", "search", "set_due_date"] {
            assert_eq!(snake_case(&camel_case(name)), name);
        }
    }
}
