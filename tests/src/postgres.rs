//! The PostgreSQL server the tests use: the one `scripts/postgres` starts (and
//! `scripts/test` runs every test beside), named by `TOOLSET_TEST_POSTGRES_URL`.
//!
//! Without the URL a test needing PostgreSQL is skipped with a message saying to run
//! `scripts/test`, unless `TOOLSET_REQUIRE_POSTGRES` is set (`scripts/test` sets it), and
//! then it fails: the test command never passes without having run them.

use std::io::Write;
use tokio_postgres::NoTls;

/// The variable holding the test server's URL.
pub const URL: &str = "TOOLSET_TEST_POSTGRES_URL";
/// Set (to anything) where a missing server must fail the tests.
pub const REQUIRE: &str = "TOOLSET_REQUIRE_POSTGRES";

/// The test server's URL; `None` (after saying so on stderr) when it is not set and not
/// required. Panics when it is required and not set.
pub fn url(test: &str) -> Option<String> {
    match std::env::var(URL) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os(REQUIRE).is_some() => panic!(
            "{REQUIRE} is set but {URL} is not: run the tests through scripts/test (or \
             scripts/postgres <command>), which starts a PostgreSQL cluster and sets it"
        ),
        _ => {
            // Past the test harness's capture, so a passing run shows it too.
            let _ = writeln!(
                std::io::stderr(),
                "skipped {test}: no PostgreSQL ({URL} is not set); run scripts/test, or \
                 scripts/postgres cargo test …, to run it against a throwaway cluster"
            );
            None
        }
    }
}

/// `url` with its database replaced by `database` (the URL's path).
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority_end = base
        .find("://")
        .map(|scheme| scheme + 3)
        .and_then(|start| base[start..].find('/').map(|slash| start + slash))
        .unwrap_or(base.len());
    format!("{}/{database}{query}", &base[..authority_end])
}

/// Runs `sql` on the server at `url` (a fresh connection, on a thread and runtime of its
/// own, so it works from any thread, inside a runtime or not).
pub fn execute(url: &str, sql: &str) {
    std::thread::scope(|scope| {
        scope
            .spawn(|| execute_here(url, sql))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
}

fn execute_here(url: &str, sql: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, NoTls)
            .await
            .expect("the test server accepts a connection");
        let driver = tokio::spawn(connection);
        client
            .batch_execute(sql)
            .await
            .unwrap_or_else(|error| panic!("`{sql}` failed: {error:?}"));
        drop(client);
        let _ = driver.await;
    });
}

/// A new, empty database on the test server named `toolset_<name>_<pid>` (dropped first
/// if an earlier run left it), and its URL.
pub fn fresh_database(url: &str, name: &str) -> String {
    let database = format!("toolset_{name}_{}", std::process::id());
    execute(
        url,
        &format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
    );
    execute(url, &format!("CREATE DATABASE {database}"));
    with_database(url, &database)
}
