//! The `main` of the tests' MCP server binaries (`src/bin/`): a runtime, the server on it,
//! and its end as an exit code, the error on stderr.

use std::future::Future;
use std::io;
use std::process::ExitCode;
use tokio::net::TcpListener;

/// Runs what `serve` starts on a multi-thread runtime until it ends.
pub fn served<F: Future<Output = io::Result<()>>>(serve: impl FnOnce() -> F) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start a runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(async { serve().await }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// `binary`: serves `server` with `stdio` until stdin closes. `binary --http`: serves it
/// with `http` on a free loopback port, first printing `listening on <url>` on stdout,
/// until killed.
pub fn stdio_or_http<T, S, H>(
    binary: &str,
    server: T,
    stdio: impl FnOnce(T) -> S,
    http: impl FnOnce(T, TcpListener) -> H,
) -> ExitCode
where
    S: Future<Output = io::Result<()>>,
    H: Future<Output = io::Result<()>>,
{
    match std::env::args().nth(1).as_deref() {
        None => served(|| stdio(server)),
        Some("--http") => served(|| async {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            println!(
                "listening on http://{}{}",
                listener.local_addr()?,
                toolset::mcp::DEFAULT_HTTP_PATH
            );
            http(server, listener).await
        }),
        Some(other) => {
            eprintln!("usage: {binary} [--http], not {other}");
            ExitCode::from(2)
        }
    }
}
