//! A tiny calendar served over MCP on stdio: the second server `inbox-hub` aggregates.
//!
//! `free_slots` (read-only) answers for five known days and fails, as a remote error,
//! for any other; `book` (reversible) books a slot.

use std::process::ExitCode;
use toolset::mcp::McpServer;
use toolset::{Autonomy, ToolError, tool, toolset};

/// The days the calendar knows.
const DAYS: [&str; 5] = [
    "2026-12-01",
    "2026-12-02",
    "2026-12-03",
    "2026-12-04",
    "2026-12-05",
];

/// The calendar's bookings, as `(day, slot)`.
#[derive(Default)]
pub struct Calendar {
    booked: Vec<(String, String)>,
}

/// The slots a known day has.
const SLOTS: [&str; 3] = ["09:00", "11:00", "15:00"];

fn known(day: &str) -> Result<(), ToolError> {
    if DAYS.contains(&day) {
        Ok(())
    } else {
        Err(ToolError::failed(format!(
            "there is no calendar for {day:?}; the known days are {} to {}",
            DAYS[0],
            DAYS[DAYS.len() - 1]
        )))
    }
}

/// The free meeting slots of one day.
#[tool(tier = "read_only")]
pub async fn free_slots(
    calendar: &Calendar,
    /// The day, as YYYY-MM-DD.
    day: String,
) -> Result<String, ToolError> {
    known(&day)?;
    let free: Vec<&str> = SLOTS
        .iter()
        .copied()
        .filter(|slot| !calendar.booked.iter().any(|(d, s)| *d == day && s == slot))
        .collect();
    Ok(format!("free on {day}: {}", free.join(", ")))
}

/// Book a meeting slot.
#[tool(tier = "reversible")]
pub async fn book(
    calendar: &mut Calendar,
    /// The day, as YYYY-MM-DD.
    day: String,
    /// The slot, as HH:MM, from `free_slots`.
    slot: String,
) -> Result<String, ToolError> {
    known(&day)?;
    if !SLOTS.contains(&slot.as_str()) {
        return Err(ToolError::failed(format!(
            "there is no slot {slot:?}; ask free_slots for the day's slots"
        )));
    }
    calendar.booked.push((day.clone(), slot.clone()));
    Ok(format!("booked {day} {slot}"))
}

toolset! {
    /// A small calendar.
    pub CalendarTools<Calendar> = [free_slots, book];
}

#[tokio::main]
async fn main() -> ExitCode {
    let served = McpServer::<CalendarTools>::new(Calendar::default())
        // What runs is the aggregating host's decision, which it makes before forwarding.
        .with_autonomy(Autonomy::Reversible)
        .with_server_info("calendar-mcp", env!("CARGO_PKG_VERSION"))
        .serve(toolset::mcp::stdio())
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("calendar-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
