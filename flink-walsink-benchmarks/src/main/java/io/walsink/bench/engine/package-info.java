/**
 * Whole-writer measurements of the shard engine without Flink: walsink's writer beside
 * lance-core's, WAL replay, restores of many shards, the engine on an S3-protocol server through a
 * latency proxy, lance-core's native memory while writing SSTables, and the writing thread's page
 * faults per row ({@link io.walsink.bench.engine.WriterFaults}). It uses only {@code support}.
 */
package io.walsink.bench.engine;
