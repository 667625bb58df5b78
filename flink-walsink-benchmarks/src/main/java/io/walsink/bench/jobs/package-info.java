/**
 * Whole Flink jobs on a local cluster: the q1-shaped job beside its discarding references, many
 * buckets against few, walsink-to-walsink pipeline latency and a long maintenance run. It uses
 * only {@code support}.
 */
package io.walsink.bench.jobs;
