// The queries the LanceDB readers (read.mjs, serve.mjs) run, as a LanceDB user writes them: each on
// LanceDB's defaults unless it sets "lsm" (useLsm), "where" or "columns".
//   queries: [{"name": "...", "where": "id > 5" | null, "columns": ["id", ...], "lsm": true | false | null,
//              "version": a version number or tag name to check out for this query | null,
//              "countRows": true for table.countRows(where), answered as one row [count] | absent}]
// Returns one JSON line per query: {"name", "rows": [[...], ...]} or {"name", "error"}.
export async function runQueries(table, queries) {
  const lines = [];
  for (const q of queries) {
    try {
      if (q.version !== null && q.version !== undefined) await table.checkout(q.version);
      if (q.countRows) {
        const count = await table.countRows(q.where ?? undefined);
        lines.push(JSON.stringify({ name: q.name, rows: [[String(count)]] }));
        continue;
      }
      let query = table.query();
      if (q.where) query = query.where(q.where);
      if (q.lsm !== null && q.lsm !== undefined) query = query.useLsm(q.lsm);
      if (q.columns) query = query.select(q.columns);
      const rows = (await query.toArray()).map((r) => q.columns.map((c) => r[c]));
      lines.push(JSON.stringify({ name: q.name, rows }, (k, v) => (typeof v === "bigint" ? v.toString() : v)));
    } catch (e) {
      lines.push(JSON.stringify({ name: q.name, error: String(e.message ?? e) }));
    } finally {
      if (q.version !== null && q.version !== undefined) await table.checkoutLatest();
    }
  }
  return lines;
}
