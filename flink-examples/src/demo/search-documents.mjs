// Searches the DocumentSearchDemo's table with LanceDB's Node client, on its defaults, while the
// job writes it: a full-text search for WORD, then a vector search near the best hit's embedding.
// usage: npm install @lancedb/lancedb@0.37.1 (once, in this folder or above)
//        node search-documents.mjs DATABASE_FOLDER TABLE WORD [--json]
// --json prints one line {"text": [[id, score], ...], "vector": [[id, distance], ...]} instead.
// Exit code 3 when LanceDB cannot search the table yet (its reason is printed).
import * as lancedb from "@lancedb/lancedb";

const [database, name, word, flag] = process.argv.slice(2);
if (!word) {
  console.error("usage: node search-documents.mjs DATABASE_FOLDER TABLE WORD [--json]");
  process.exit(2);
}
const json = flag === "--json";
try {
  const table = await (await lancedb.connect(database)).openTable(name);
  const text = await table.search(word, "fts", "text").select(["id", "title", "text"]).limit(5).toArray();
  const vector = text.length === 0 ? [] : await table
    .vectorSearch(Array.from((await table.query().where(`id = ${text[0].id}`).select(["emb"]).toArray())[0].emb))
    .column("emb")
    .select(["id", "title"])
    .limit(5)
    .toArray();
  if (json) {
    console.log(JSON.stringify({
      text: text.map((r) => [Number(r.id), r._score]),
      vector: vector.map((r) => [Number(r.id), r._distance]),
    }));
  } else {
    console.log(`full text "${word}": ${text.length} hits`);
    for (const r of text) console.log(`  ${r.title}  (score ${r._score.toFixed(2)}): ${r.text}`);
    if (text.length > 0) console.log(`nearest to ${text[0].title}:`);
    for (const r of vector) console.log(`  ${r.title}  (distance ${r._distance.toFixed(4)})`);
  }
} catch (e) {
  console.log(json ? JSON.stringify({ error: String(e.message ?? e) }) : `not searchable yet: ${e.message ?? e}`);
  process.exit(3);
}
