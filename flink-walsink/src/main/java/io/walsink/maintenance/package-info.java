/**
 * Table maintenance that runs next to the writers, without Flink: {@link
 * io.walsink.maintenance.Compactor} merges the shards' published SSTables into the Lance base table
 * and can tidy the base table afterwards. Sits on {@code shard}, {@code format} and {@code storage};
 * {@code flink} and {@code table} may use it.
 */
package io.walsink.maintenance;
