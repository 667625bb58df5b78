// Reads a walsink table with LanceDB's Node client, as a LanceDB user would: the table is opened
// through a database folder holding a link to it, and each query runs on LanceDB's defaults.
// usage: node read.mjs TABLE_PATH QUERIES_JSON
//   QUERIES_JSON: [{"name": "...", "where": "id > 5" | null, "columns": ["id", ...], "lsm": true | false | null}]
// prints one JSON line per query: {"name", "rows": [[...], ...]} or {"name", "error"}
import * as lancedb from "@lancedb/lancedb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [table, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson);
const db = fs.mkdtempSync(path.join(os.tmpdir(), "walsink-lancedb-"));
try {
  fs.symlinkSync(path.resolve(table), path.join(db, "t.lance"));
  const t = await (await lancedb.connect(db)).openTable("t");
  for (const q of queries) {
    try {
      let query = t.query();
      if (q.where) query = query.where(q.where);
      if (q.lsm !== null && q.lsm !== undefined) query = query.useLsm(q.lsm);
      if (q.columns) query = query.select(q.columns);
      const rows = (await query.toArray()).map((r) => q.columns.map((c) => r[c]));
      console.log(JSON.stringify({ name: q.name, rows }, (k, v) => (typeof v === "bigint" ? v.toString() : v)));
    } catch (e) {
      console.log(JSON.stringify({ name: q.name, error: String(e.message ?? e) }));
    }
  }
} finally {
  fs.rmSync(db, { recursive: true, force: true });
}
