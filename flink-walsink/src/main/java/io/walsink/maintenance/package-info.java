/**
 * Table maintenance beside the writers, without Flink: {@link io.walsink.maintenance.Compactor}
 * merges the shards' published SSTables into the Lance base table (and can tidy the base table
 * afterwards), {@link io.walsink.maintenance.GarbageCollector} removes what no live manifest and no
 * retained checkpoint can need. Sits on {@code shard}, {@code format} and {@code storage};
 * {@code flink} and {@code table} may use it.
 */
package io.walsink.maintenance;
