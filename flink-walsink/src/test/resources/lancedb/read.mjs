// Reads a walsink table with LanceDB's Node client, as a LanceDB user would: the table is opened
// through a database folder holding a link to it, and each query runs on LanceDB's defaults.
// usage: node read.mjs TABLE_PATH QUERIES_JSON
//   QUERIES_JSON: [{"name": "...", "where": "id > 5" | null, "columns": ["id", ...], "lsm": true | false | null}]
// prints one JSON line per query: {"name", "rows": [[...], ...]} or {"name", "error"}
import * as lancedb from "@lancedb/lancedb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runQueries } from "./queries.mjs";

const [table, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson);
const db = fs.mkdtempSync(path.join(os.tmpdir(), "walsink-lancedb-"));
try {
  fs.symlinkSync(path.resolve(table), path.join(db, "t.lance"));
  const t = await (await lancedb.connect(db)).openTable("t");
  for (const line of await runQueries(t, queries)) console.log(line);
} finally {
  fs.rmSync(db, { recursive: true, force: true });
}
