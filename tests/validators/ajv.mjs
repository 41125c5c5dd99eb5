// Ajv (JSON Schema 2020-12, strict mode) on every JSON Schema a rendering holds.
//
//   node tests/validators/ajv.mjs RENDERED.json
//
// RENDERED.json is what tests/tests/render_validators.rs writes: {"<format>": [tool, ...]}
// for the JSON formats. Each schema a strict JSON Schema reader gets is compiled with
// Ajv2020 in strict mode (unknown keywords, unknown formats, type-less `properties`,
// `required` naming an undeclared property, loose tuples: all errors), with ajv-formats
// for the standard formats it implements and the four standard ones it lacks (idn-email,
// idn-hostname, iri, iri-reference) registered as known, and nothing else: ajv-formats'
// OpenAPI extras (`int32`, `double`, …) stay unknown. Gemini's `parameters` is not
// JSON Schema (an OpenAPI 3.0 subset) and is left to the google-genai check.
//
// Before judging, Ajv must reject a deliberately bad schema (a `uint32` format), so this
// check cannot pass by accepting everything. Prints one line per problem and a verdict
// line; exits 1 if any schema fails, 2 if the self-check does.

import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/// The 2020-12 formats ajv-formats implements.
const STANDARD = [
  "date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri",
  "uri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
];

function strictAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  // Only JSON Schema 2020-12's format vocabulary: ajv-formats also knows OpenAPI's
  // `int32`, `double`, `byte`, …, which a strict 2020-12 reader does not.
  addFormats(ajv, STANDARD);
  for (const format of ["idn-email", "idn-hostname", "iri", "iri-reference"]) {
    ajv.addFormat(format, true);
  }
  return ajv;
}

/// The problem Ajv finds compiling `schema`, or null when it compiles.
function problem(schema) {
  try {
    strictAjv().compile(schema);
    return null;
  } catch (error) {
    return error.message;
  }
}

/// Every (label, schema) a strict JSON Schema reader gets from one tool of `format`.
function schemasOf(format, tool) {
  const name = tool.name ?? tool.function?.name;
  const found = [];
  const add = (what, schema) => {
    if (schema !== undefined) found.push([`${format} ${name} ${what}`, schema]);
  };
  switch (format) {
    case "openai_chat":
      add("parameters", tool.function?.parameters);
      break;
    case "openai_responses":
      add("parameters", tool.parameters);
      add("output_schema", tool.output_schema);
      break;
    case "anthropic":
      add("input_schema", tool.input_schema);
      break;
    case "gemini":
      add("parametersJsonSchema", tool.parametersJsonSchema);
      break;
    case "mcp":
      add("inputSchema", tool.inputSchema);
      add("outputSchema", tool.outputSchema);
      break;
    default:
      break;
  }
  return found;
}

const bad = { type: "object", properties: { n: { type: "integer", format: "uint32" } } };
if (problem(bad) === null) {
  console.log("ajv self-check: a `uint32` format was accepted; strict mode is not on");
  process.exit(2);
}

const rendered = JSON.parse(readFileSync(process.argv[2], "utf8"));
let checked = 0;
let failed = 0;
for (const [format, tools] of Object.entries(rendered)) {
  for (const tool of tools) {
    for (const [label, schema] of schemasOf(format, tool)) {
      checked += 1;
      const why = problem(schema);
      if (why !== null) {
        failed += 1;
        console.log(`ajv: ${label}: ${why}`);
      }
    }
  }
}
console.log(`ajv verdict: ${checked} schemas, ${failed} rejected`);
process.exit(failed === 0 ? 0 : 1);
