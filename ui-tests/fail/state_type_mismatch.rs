use toolset::{tool, toolset};

pub struct Inbox {
    pub items: Vec<String>,
}

pub struct Calendar {
    pub events: Vec<String>,
}

/// Add an event to the calendar.
#[tool(tier = "reversible")]
pub async fn add_event(state: &mut Calendar, event: String) {
    state.events.push(event);
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [add_event];
}

fn main() {}
