// Validates speedscope profiles against speedscope's own file-format schema
// (node_modules/speedscope/dist/release/file-format-schema.json, a draft-07 JSON
// schema) with Ajv, then checks what the schema cannot express but speedscope's
// importer relies on: each sampled profile has one weight per sample, every frame
// index is an integer naming a frame of shared.frames, weights are not negative,
// startValue <= endValue, activeProfileIndex names a profile.
// Usage: node validate.js [--modules DIR] FILE.json...   Exit 0 when all are valid, 1 otherwise.
// DIR is the node_modules directory (default: the one beside this script).
"use strict";
const fs = require("fs");
const path = require("path");

let args = process.argv.slice(2);
let modules = path.join(__dirname, "node_modules");
if (args[0] === "--modules") {
  modules = path.resolve(args[1]);
  args = args.slice(2);
}
if (args.length === 0) {
  console.error("usage: node validate.js [--modules DIR] FILE.json...");
  process.exit(2);
}
const Ajv = require(path.join(modules, "ajv"));
const schemaPath = path.join(modules, "speedscope", "dist", "release", "file-format-schema.json");
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
const validateSchema = ajv.compile(schema);
const speedscopeVersion = JSON.parse(fs.readFileSync(path.join(modules, "speedscope", "package.json"), "utf8")).version;

// What the schema leaves out; returns a list of messages.
function consistency(file) {
  const errors = [];
  const frames = file.shared.frames.length;
  if (file.activeProfileIndex !== undefined &&
      !(Number.isInteger(file.activeProfileIndex) && file.activeProfileIndex >= 0 &&
        file.activeProfileIndex < file.profiles.length))
    errors.push(`/activeProfileIndex ${file.activeProfileIndex} does not name one of the ${file.profiles.length} profile(s)`);
  file.profiles.forEach((p, i) => {
    const at = `/profiles/${i}`;
    if (p.startValue > p.endValue) errors.push(`${at} startValue ${p.startValue} > endValue ${p.endValue}`);
    const index = (f, where) => {
      if (!Number.isInteger(f) || f < 0 || f >= frames)
        errors.push(`${where} frame index ${f} is not an index into shared.frames (${frames} frame(s))`);
    };
    if (p.type === "sampled") {
      if (p.samples.length !== p.weights.length)
        errors.push(`${at} has ${p.samples.length} sample(s) but ${p.weights.length} weight(s)`);
      p.samples.forEach((s, j) => s.forEach((f, k) => index(f, `${at}/samples/${j}/${k}`)));
      p.weights.forEach((w, j) => {
        if (!(w >= 0)) errors.push(`${at}/weights/${j} ${w} is negative`);
      });
    } else {
      p.events.forEach((e, j) => index(e.frame, `${at}/events/${j}`));
    }
  });
  return errors;
}

let failed = 0;
for (const name of args) {
  let file;
  try {
    file = JSON.parse(fs.readFileSync(name, "utf8"));
  } catch (e) {
    ++failed;
    console.log(`${name}: INVALID: not JSON: ${e.message}`);
    continue;
  }
  let errors;
  if (!validateSchema(file))
    errors = validateSchema.errors.map(e => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  else
    errors = consistency(file);
  if (errors.length) {
    ++failed;
    console.log(`${name}: INVALID`);
    // The profile anyOf repeats each error for both branches; print each once, and not thousands.
    const unique = [...new Set(errors)];
    for (const e of unique.slice(0, 50)) console.log(`  ${e}`);
    if (unique.length > 50) console.log(`  ... and ${unique.length - 50} more`);
  } else {
    const samples = file.profiles.reduce((n, p) => n + (p.samples ? p.samples.length : p.events.length), 0);
    console.log(`${name}: valid speedscope file (schema of speedscope ${speedscopeVersion}): ` +
                `${file.profiles.length} profile(s), ${file.shared.frames.length} frame(s), ${samples} sample(s)/event(s)`);
  }
}
process.exit(failed ? 1 : 0);
