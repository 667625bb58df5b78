/**
 * The compaction engine ({@link io.walsink.maintenance.compaction.TableCompaction}): plans each
 * shard's generations to merge, merges them in turns within a run's budget and tidies the base table
 * afterwards. Takes and returns the API's options and result; uses {@code index} for the base
 * table's indexes and {@code gc} for what live consumers pin.
 */
package io.walsink.maintenance.compaction;
