//! Running blocking code from a tool handler so that the tool's time limit, and the
//! cancellation of a run, can still end the call.
//!
//! `apply` stops a call by dropping its handler's future, which takes effect at the
//! handler's next `.await`. Code that blocks its thread (`std::thread::sleep`, synchronous
//! file or network I/O, a long computation) has no such point: the limit cannot interrupt
//! it, and while it blocks, the calls running beside it (a batch of read-only calls shares
//! one task) wait too. [`blocking`] moves such code to tokio's blocking thread pool, so the
//! handler itself only awaits.

/// Runs `work` on tokio's blocking thread pool and returns its result.
///
/// While `work` runs, the handler awaits, so a `timeout_ms` or a cancellation stops the
/// call on time (recorded as timed out or cancelled) and the read-only calls beside it
/// keep running. What cannot be stopped is `work` itself: a thread cannot be interrupted,
/// so a stopped call's `work` runs on to its end in the background and its result is
/// dropped. Give `work` only what it may safely finish with: owned data and `Arc`s, never
/// a promise that the run is still going on.
///
/// A panic in `work` resumes in the handler, so the call is recorded as panicked.
///
/// ```
/// use toolset::{tool, ToolError};
///
/// /// Count the lines of a file on disk.
/// #[tool(tier = "read_only", timeout_ms = 2000)]
/// pub async fn count_lines(path: String) -> Result<String, ToolError> {
///     let text = toolset::blocking(move || std::fs::read_to_string(path)).await?;
///     Ok(text.lines().count().to_string())
/// }
/// ```
pub async fn blocking<F, R>(work: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // A blocking task is only cancelled by the runtime shutting down; the call
            // cannot finish then, and `apply` records this as the handler panicking.
            Err(_) => std::panic::resume_unwind(Box::new(
                "the blocking work was cancelled: the tokio runtime is shutting down",
            )),
        },
    }
}
