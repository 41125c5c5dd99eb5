//! Helpers shared by the HTTP tests.

// Each test binary includes this module and uses a part of it.
#![allow(dead_code, reason = "each test binary uses a part of the helpers")]

pub mod raw_http;
