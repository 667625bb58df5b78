// Nearest-neighbour searches and index creation on a walsink table with LanceDB's Node client, as
// a LanceDB user writes them (the table is opened through a database folder holding a link to it).
// usage: node search.mjs TABLE_PATH < SPEC_JSON (on standard input: a spec of many vectors outgrows an argument)
//   SPEC_JSON: {"index": {"column": "emb", "type": "ivf_pq", "numPartitions": 4, "numSubVectors": 4}} creates
//              an index and prints {"indexed": true} or {"error"};
//              {"column": "emb", "k": 10, "columns": ["id"], "lsm": true | false | null, "vectors": [[...], ...]}
//              prints one JSON line per vector: {"rows": [[...columns, _distance], ...], "ms": its time} or {"error"};
//              {"column": "text", "k": 10, "columns": ["id"], "lsm": ..., "texts": ["word", ...]} runs a
//              full-text search per text and prints one JSON line per text: {"rows": [[...columns, _score], ...]}
import * as lancedb from "@lancedb/lancedb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [table] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(0, "utf8"));
const db = fs.mkdtempSync(path.join(os.tmpdir(), "walsink-lancedb-"));
const json = (v) => JSON.stringify(v, (k, x) => (typeof x === "bigint" ? x.toString() : x));
try {
  fs.symlinkSync(path.resolve(table), path.join(db, "t.lance"));
  const t = await (await lancedb.connect(db)).openTable("t");
  if (spec.index) {
    try {
      const { column, type, ...options } = spec.index;
      if (type !== "ivf_pq") throw new Error("unsupported index type " + type);
      await t.createIndex(column, { config: lancedb.Index.ivfPq(options) });
      console.log(json({ indexed: true }));
    } catch (e) {
      console.log(json({ error: String(e.message ?? e) }));
    }
  } else if (spec.texts) {
    for (const text of spec.texts) {
      try {
        let query = t.search(text, "fts", spec.column).limit(spec.k);
        if (spec.lsm !== null && spec.lsm !== undefined) query = query.useLsm(spec.lsm);
        const rows = (await query.toArray()).map((r) => [...spec.columns.map((c) => r[c]), r._score]);
        console.log(json({ rows }));
      } catch (e) {
        console.log(json({ error: String(e.message ?? e) }));
      }
    }
  } else {
    for (const vector of spec.vectors) {
      try {
        const started = performance.now();
        let query = t.vectorSearch(vector).column(spec.column).limit(spec.k);
        if (spec.lsm !== null && spec.lsm !== undefined) query = query.useLsm(spec.lsm);
        const rows = (await query.toArray()).map((r) => [...spec.columns.map((c) => r[c]), r._distance]);
        console.log(json({ rows, ms: performance.now() - started }));
      } catch (e) {
        console.log(json({ error: String(e.message ?? e) }));
      }
    }
  }
} finally {
  fs.rmSync(db, { recursive: true, force: true });
}
