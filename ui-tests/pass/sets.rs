#![deny(warnings)]
//! Sets: without `<State>` (the state is `()`), several in one `toolset!`, entries named
//! by path, one tool in two sets, trailing commas.

use toolset::prelude::ToolSet;
use toolset::set::ToolName;
use toolset::{tool, toolset};

/// Tools of the calendar, in their own module.
pub mod calendar {
    use toolset::tool;

    /// Book a room.
    #[tool(tier = "external_reversible")]
    pub async fn book(room: String) -> String {
        room
    }

    /// Nested deeper.
    pub mod rooms {
        use toolset::tool;

        /// List the rooms.
        #[tool(tier = "read_only")]
        pub async fn list() -> &'static str {
            "a, b"
        }
    }
}

pub struct Inbox;

/// Tell the time.
#[tool(tier = "read_only")]
pub async fn now() -> &'static str {
    "noon"
}

/// Read the inbox.
#[tool(tier = "read_only")]
pub async fn read(state: &Inbox) -> &'static str {
    let Inbox = state;
    "empty"
}

/// Names that share a length, a prefix, or all but one character.
pub mod lookalikes {
    use toolset::tool;

    /// One.
    #[tool(tier = "read_only")]
    pub async fn ab() {}

    /// Two.
    #[tool(tier = "read_only")]
    pub async fn ba() {}

    /// Three.
    #[tool(tier = "read_only")]
    pub async fn tool_a() {}

    /// Four.
    #[tool(tier = "read_only", name = "tool-a")]
    pub async fn tool_dash_a() {}

    /// Five.
    #[tool(tier = "read_only", name = "tool_")]
    pub async fn tool_underscore() {}

    /// Six.
    #[tool(tier = "read_only")]
    pub async fn tool() {}
}

toolset! {
    /// Tools whose names a lookup must tell apart.
    pub Lookalikes = [
        lookalikes::ab,
        lookalikes::ba,
        lookalikes::tool_a,
        lookalikes::tool_dash_a,
        lookalikes::tool_underscore,
        lookalikes::tool,
    ];
}

toolset! {
    /// Stateless tools: the state is `()`.
    pub Clock = [now];

    /// The calendar's tools, named by path.
    pub Calendar = [calendar::book, self::calendar::rooms::list, now,];

    /// The inbox's tools; `now` is in three sets.
    pub(crate) InboxTools<Inbox> = [read, now];
}

pub fn main() {
    let _: fn() -> <Clock as ToolSet>::State = || ();
    assert_eq!(Clock::specs().len(), 1);
    let names: Vec<&str> = Calendar::specs().iter().map(|spec| spec.name()).collect();
    assert_eq!(names, ["book", "list", "now"]);
    assert_eq!(InboxTools::specs().len(), 2);
    assert_eq!(<InboxTools as ToolSet>::NAME, "InboxTools");
    // Both generated enums are `Debug`; a call names its tool, and its arguments (which
    // need not be `Debug`) print as `..`.
    let call = <Calendar as ToolSet>::parse(CalendarName::Book, r#"{"room": "a"}"#);
    assert_eq!(format!("{call:?}"), "Ok(Book(..))");
    assert_eq!(format!("{:?}", CalendarName::List), "List");
    // Every name is found, as itself, however alike; near misses are not.
    for name in LookalikesName::ALL {
        assert_eq!(LookalikesName::from_name(name.as_str()), Some(*name));
    }
    for stranger in [
        "",
        "a",
        "aa",
        "tool_b",
        "tool-",
        "Tool",
        "tool_a ",
        "tool_dash_a",
        "tool_underscore",
    ] {
        assert_eq!(LookalikesName::from_name(stranger), None, "{stranger:?}");
    }
}
