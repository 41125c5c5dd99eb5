//! The one-name-per-tool rule of a set, in constant evaluation: `toolset!` cannot see a
//! `#[tool(name = "...")]` override of another item, so the generated code asserts it
//! with these `const fn`s (re-exported through `toolset::__private`), and the error names
//! both entries.

/// Whether two names are equal, usable in constant evaluation.
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The first entry before `index` whose name is `names[index]`'s.
pub const fn earlier_same_name(names: &[&str], index: usize) -> Option<usize> {
    let mut i = 0;
    while i < index {
        if same_name(names[i], names[index]) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Text assembled in constant evaluation, for a compile error that names what only
/// constant evaluation knows (a tool name set by `#[tool(name = "...")]`, a set's state
/// type in a check `#[tool]` writes).
pub struct ConstMessage {
    bytes: [u8; 512],
    len: usize,
}

impl ConstMessage {
    /// An empty message.
    pub const fn new() -> Self {
        ConstMessage {
            bytes: [0; 512],
            len: 0,
        }
    }

    /// Appends `text`, dropping what does not fit.
    pub const fn push(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        let mut i = 0;
        while i < text.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = text[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text so far (cut back to a character boundary if it was truncated).
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            let (head, _) = self.bytes.split_at(len);
            if let Ok(text) = core::str::from_utf8(head) {
                return text;
            }
            len -= 1;
        }
    }
}

impl Default for ConstMessage {
    fn default() -> Self {
        ConstMessage::new()
    }
}

/// The error of two entries `first` < `second` of the set `set` with one tool name.
pub const fn duplicate_name_message(
    set: &str,
    entries: &[&str],
    names: &[&str],
    first: usize,
    second: usize,
) -> ConstMessage {
    ConstMessage::new()
    .push("`")
    .push(entries[second])
    .push("` and `")
    .push(entries[first])
    .push("` in `")
    .push(set)
    .push("` are both named `")
    .push(names[second])
    .push("`, so the model could not tell them apart: give one of them another name with #[tool(name = \"...\")]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_earlier_entry_of_the_same_name() {
        let names = ["a", "b", "a", "b"];
        assert_eq!(earlier_same_name(&names, 0), None);
        assert_eq!(earlier_same_name(&names, 2), Some(0));
        assert_eq!(earlier_same_name(&names, 3), Some(1));
        assert!(!same_name("ab", "abc"));
    }

    #[test]
    fn a_long_message_is_cut_at_a_character_boundary() {
        let long = "é".repeat(300);
        let message = ConstMessage::new().push("x").push(&long);
        assert_eq!(message.as_str().len(), 511);
    }
}
