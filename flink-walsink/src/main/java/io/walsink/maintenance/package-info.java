/**
 * Table maintenance beside the writers, without Flink, as users see it: {@link
 * io.walsink.maintenance.Compactor} merges the shards' published SSTables into the Lance base table
 * (and can tidy the base table afterwards), with the {@link io.walsink.maintenance.CompactorOptions}
 * it takes and the {@link io.walsink.maintenance.CompactionResult} it returns. Everything here is
 * {@code @PublicEvolving}; the machinery lives in the sub-packages, which the sink's maintenance and
 * the command-line tool use directly: {@code compaction} (the merge engine), {@code index} (the base
 * table's indexes after a merge), {@code gc} (garbage collection) and {@code migration} (shard ids
 * of earlier releases). Sits on {@code recovery}, {@code shard}, {@code format} and {@code storage};
 * {@code flink} and {@code table} may use it.
 */
package io.walsink.maintenance;
