//! Helpers shared by the HTTP tests.

pub mod raw_http;
