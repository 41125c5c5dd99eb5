// What every test client script shares: its server argument, one line a check, and the
// tally "N passed, M failed" that tests/src/sdk_client.rs reads, exiting non-zero when
// any failed (or none ran).

// The server the script was given: a binary to start over stdio, or an http:// URL.
export function serverArgument(script) {
  const [server] = process.argv.slice(2);
  if (!server) {
    console.error(`usage: node ${script} <server binary | http://.../mcp>`);
    process.exit(2);
  }
  return server;
}

let passed = 0;
let failed = 0;

// Records one check: `ok` says whether it held, `detail` is printed when it did not.
export function check(name, ok, detail) {
  if (ok) {
    passed += 1;
    console.log(`ok   ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}: ${JSON.stringify(detail)}`);
  }
}

// Prints the tally and exits.
export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
