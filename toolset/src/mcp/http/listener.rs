//! The accept loop: hyper's HTTP/1 server with a header-read timeout, a cap on open
//! connections (one more is answered 503 and closed), each request tagged with its
//! [`Connection`], and a graceful shutdown.

use super::super::messages;
use super::config::HttpConfig;
use crate::http_checks::Connection;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// How long open connections get to finish after shutdown.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `shutdown` completes.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    config: &HttpConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let permits = Arc::new(Semaphore::new(config.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, say: wait instead of spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tokio::spawn(refuse(stream, config.max_connections));
            continue;
        };
        let local = match stream.local_addr() {
            Ok(local) => local,
            Err(_) => continue,
        };
        let connection = Connection {
            local: Some(local),
            peer,
        };
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(connection);
            app.clone().oneshot(request.map(axum::body::Body::new))
        });
        let served = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // A connection closed by the client or a timeout is not the server's error.
            let _ = served.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(DRAIN_LIMIT, graceful.shutdown()).await;
    Ok(())
}

/// Answers a connection over the cap with 503 and closes it.
async fn refuse(mut stream: TcpStream, max: usize) {
    let text = messages::too_many_connections(max);
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
