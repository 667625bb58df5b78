/**
 * Layer 3, the shard engine: one shard's writer (memtables, primary-key index, WAL appends,
 * SSTables, publication, replay, fencing). No Flink types: testable on its own.
 */
package io.walsink.shard;
