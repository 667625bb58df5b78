/**
 * The q1-shaped SQL job into Paimon's primary-key table, on Flink 1.20 in a JVM of its own: the
 * reference the benchmarks' {@code sql-vs-paimon} definition sets walsink beside.
 */
package io.walsink.bench.paimon;
