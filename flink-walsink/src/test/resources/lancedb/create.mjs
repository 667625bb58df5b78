// Creates a table in a LanceDB database folder as a LanceDB user does: connect(root).createTable.
// usage: node create.mjs ROOT NAME ROWS_JSON (an array of objects)
import * as lancedb from "@lancedb/lancedb";

const [root, name, rowsJson] = process.argv.slice(2);
const db = await lancedb.connect(root);
await db.createTable(name, JSON.parse(rowsJson));
console.log(JSON.stringify({ created: name }));
