// Validates SARIF files against the official SARIF 2.1.0 schema (a draft-04
// JSON schema, as shipped by @microsoft/jest-sarif) with Ajv.
// Usage: node sarif_schema.js FILE.sarif...   Exit 0 when all are valid.
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv = require("ajv-draft-04");
const addFormats = require("ajv-formats");

const schemaPath = path.join(__dirname, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas",
                             "sarif-2.1.0-rtm.5.json");
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
// unicodeRegExp: false because the schema's "language" pattern is not a valid Unicode-mode regular expression.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

let failed = 0;
for (const file of process.argv.slice(2)) {
  const log = JSON.parse(fs.readFileSync(file, "utf8"));
  if (!validate(log)) {
    ++failed;
    console.log(`${file}: INVALID`);
    for (const e of validate.errors) console.log(`  ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  } else {
    const results = log.runs.reduce((n, run) => n + run.results.length, 0);
    console.log(`${file}: valid SARIF 2.1.0 (${results} result(s))`);
  }
}
process.exit(failed ? 1 : 0);
