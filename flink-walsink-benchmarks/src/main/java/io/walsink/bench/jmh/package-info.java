/**
 * JMH micro-benchmarks of the shard engine and {@link io.walsink.bench.jmh.BenchmarkReport}, which
 * runs each beside its baseline in the same fork and prints the ratios; it uses only {@code support}.
 */
package io.walsink.bench.jmh;
