// duckdb_check.sh's SQL: reads the report's CSV and JSON lines with DuckDB (@duckdb/node-api,
// installed into MODULES' folder by the script) and prints, per trace, in the order of the names,
//   gc<TAB>TRACE<TAB>ROWS<TAB>SUM(PAUSE_COLUMN)     from read_csv_auto(GC_CSV)
//   alloc<TAB>TRACE<TAB>ROWS<TAB>SUM(MB_COLUMN)     from read_json_auto(ALLOC_JSONL), its "alloc" rows
//   summary<TAB>TRACE<TAB>SUM(gcs)<TAB>SUM(pause_ms)<TAB>SUM(allocated_mb)   from SUMMARY_JSONL, over processes
// for the script to compare with its own pass over the same files, and with each other.
// Usage: node duckdb_check.mjs MODULES GC_CSV ALLOC_JSONL SUMMARY_JSONL PAUSE_COLUMN MB_COLUMN
// Exit 0 when read, 1 when DuckDB could not read a file or it lacks a column, 2 on bad usage.
import { createRequire } from "node:module";
import path from "node:path";

const [modules, gcCsv, allocJsonl, summaryJsonl, pauseColumn, mbColumn] = process.argv.slice(2);
if (!mbColumn) {
  console.error("usage: node duckdb_check.mjs MODULES GC_CSV ALLOC_JSONL SUMMARY_JSONL PAUSE_COLUMN MB_COLUMN");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "index.js"));
const { DuckDBInstance } = require("@duckdb/node-api");

const literal = s => `'${s.replaceAll("'", "''")}'`;
const ident = s => `"${s.replaceAll('"', '""')}"`;

const instance = await DuckDBInstance.create(":memory:");
const db = await instance.connect();
async function rows(sql) {
  return (await db.runAndReadAll(sql)).getRowsJS();
}
// The columns of a relation, to say which are there when one is missing.
async function requireColumns(from, file, columns) {
  const names = (await db.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRowsJS().map(r => r[0]);
  const missing = columns.filter(c => !names.includes(c));
  if (missing.length) throw new Error(`${file} has no column ${missing.join(", ")} (it has: ${names.join(", ")})`);
}
try {
  const gc = `read_csv_auto(${literal(gcCsv)}, header = true)`;
  await requireColumns(gc, gcCsv, ["trace", pauseColumn]);
  for (const [trace, n, sum] of await rows(
      `SELECT trace::VARCHAR, count(*)::BIGINT, coalesce(sum(${ident(pauseColumn)}::DOUBLE), 0)
       FROM ${gc} GROUP BY ALL ORDER BY 1`)) {
    console.log(["gc", trace, String(n), String(sum)].join("\t"));
  }
  const alloc = `read_json_auto(${literal(allocJsonl)}, format = 'newline_delimited')`;
  await requireColumns(alloc, allocJsonl, ["table", "trace", mbColumn]);
  for (const [trace, n, sum] of await rows(
      `SELECT trace::VARCHAR, count(*)::BIGINT, coalesce(sum(${ident(mbColumn)}::DOUBLE), 0)
       FROM ${alloc} WHERE "table" = 'alloc' GROUP BY ALL ORDER BY 1`)) {
    console.log(["alloc", trace, String(n), String(sum)].join("\t"));
  }
  const summary = `read_json_auto(${literal(summaryJsonl)}, format = 'newline_delimited')`;
  await requireColumns(summary, summaryJsonl, ["table", "trace", "gcs", "pause_ms", "allocated_mb"]);
  for (const [trace, gcs, pause, mb] of await rows(
      `SELECT trace::VARCHAR, sum(gcs)::BIGINT, sum(pause_ms::DOUBLE), sum(allocated_mb::DOUBLE)
       FROM ${summary} WHERE "table" = 'summary' GROUP BY ALL ORDER BY 1`)) {
    console.log(["summary", trace, String(gcs), String(pause), String(mb)].join("\t"));
  }
} catch (e) {
  console.error(`DuckDB: ${e.message}`);
  process.exitCode = 1;
} finally {
  db.closeSync();
  instance.closeSync();
}
