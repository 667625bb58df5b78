// Opens a table of a LanceDB database folder by its name, as a LanceDB user addresses tables:
// connect(root).openTable(name). Prints the database's table names first, then the queries' lines.
// usage: node named.mjs ROOT NAME QUERIES_JSON (queries as in queries.mjs)
// prints {"name": "tableNames", "rows": [["a"], ...]}, then one JSON line per query
import * as lancedb from "@lancedb/lancedb";
import { runQueries } from "./queries.mjs";

const [root, name, queriesJson] = process.argv.slice(2);
const db = await lancedb.connect(root);
console.log(JSON.stringify({ name: "tableNames", rows: (await db.tableNames()).map((n) => [n]) }));
for (const line of await runQueries(await db.openTable(name), JSON.parse(queriesJson))) console.log(line);
