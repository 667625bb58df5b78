/**
 * What every benchmark shares and nothing benchmark-specific: option parsing, tables and figures,
 * spreads and percentiles, process and thread CPU, and the small local shard table and row batches
 * the engine benchmarks write through. It depends on no other benchmark package.
 */
package io.walsink.bench.support;
