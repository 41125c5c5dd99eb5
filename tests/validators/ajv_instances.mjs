// Ajv (JSON Schema 2020-12) judging argument instances against rendered schemas.
//
//   node tests/validators/ajv_instances.mjs CASES.json
//
// CASES.json is what a Rust test writes: [{"label", "schema", "instance"}], each instance
// one the schema must accept. JavaScript reads every JSON number as a double, as a
// JavaScript client of the schema would: `340282366920938463463374607431768211455`
// (u128::MAX) is 2^128 to it.
//
// Before judging, Ajv must refuse a deliberately bad instance, so no verdict can pass by
// accepting everything. Prints one line per refused case and a verdict line; exits 1 if
// any case is refused, 2 if the self-check fails.

import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const ajv = () => new Ajv2020({ strict: false, allErrors: true });

if (ajv().validate({ type: "integer", maximum: 1 }, 2)) {
  console.log("self-check failed: 2 passed maximum 1");
  process.exit(2);
}
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
let refused = 0;
for (const { label, schema, instance } of cases) {
  const validator = ajv().compile(schema);
  if (!validator(instance)) {
    refused += 1;
    console.log(`${label}: refused: ${JSON.stringify(validator.errors)}`);
  }
}
console.log(`Ajv: ${cases.length - refused} of ${cases.length} accepted`);
process.exit(refused ? 1 : 0);
