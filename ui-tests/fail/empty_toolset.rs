use toolset::toolset;

pub struct Inbox;

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [];
}

fn main() {}
