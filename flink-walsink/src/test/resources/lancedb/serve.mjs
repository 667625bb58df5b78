// read.mjs in one long-running process, for a test that polls a table: Node's start (about a
// second) is paid once, not per read. Each request connects and opens the table anew, as a new
// LanceDB reader would (a handle LanceDB opened earlier does not look for newer versions on its
// defaults), then runs its queries.
// usage: node serve.mjs TABLE_PATH, then one line of QUERIES_JSON (as read.mjs takes) per read on
// stdin; prints, per request, one JSON line per query as read.mjs does, then {"end": true} with
// the base table version the request's handle had opened ("version"), when it opened one.
// A request {"hold": true} instead opens the table once and keeps that handle, as an application
// that opens a table at its start does, and prints {"version": N}; {"held": QUERIES_JSON} then runs
// the queries on that handle (LanceDB's defaults: it keeps the base table version it opened;
// {"hold": true, "readConsistencyInterval": SECONDS} connects with that option instead).
// Exits when stdin closes.
import * as lancedb from "@lancedb/lancedb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { runQueries } from "./queries.mjs";

const [table] = process.argv.slice(2);
const db = fs.mkdtempSync(path.join(os.tmpdir(), "walsink-lancedb-"));
let held = null;
try {
  fs.symlinkSync(path.resolve(table), path.join(db, "t.lance"));
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    const queries = Array.isArray(request) ? request : request.held ?? [];
    let lines;
    let version;
    try {
      if (request.hold) {
        const interval = request.readConsistencyInterval;
        const options = interval == null ? {} : { readConsistencyInterval: interval };
        held = await (await lancedb.connect(db, options)).openTable("t");
        lines = [JSON.stringify({ version: await held.version() })];
      } else if (request.held) {
        if (!held) throw new Error("no table held: send {\"hold\": true} first");
        lines = await runQueries(held, queries);
        version = await held.version();
      } else {
        const t = await (await lancedb.connect(db)).openTable("t");
        lines = await runQueries(t, queries);
        version = await t.version();
      }
    } catch (e) {
      if (request.hold) lines = [JSON.stringify({ error: String(e.message ?? e) })];
      else lines = queries.map((q) => JSON.stringify({ name: q.name, error: String(e.message ?? e) }));
    }
    process.stdout.write(lines.map((l) => l + "\n").join("") + JSON.stringify({ end: true, version }) + "\n");
  }
} finally {
  fs.rmSync(db, { recursive: true, force: true });
}
