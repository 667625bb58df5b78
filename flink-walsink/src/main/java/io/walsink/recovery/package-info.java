/**
 * The restore protocol and what it shares with the compactor, without Flink: {@link
 * io.walsink.recovery.ShardRestore} opens a shard as of a checkpoint whatever the compactor merged
 * since, deciding from durable facts alone ({@link io.walsink.recovery.MergesSinceCheckpoint}: merge
 * progress, the {@link io.walsink.recovery.MergeJournal merge journal}, the {@link
 * io.walsink.recovery.ShardResets resets}) and resetting a bucket's base-table rows when it must
 * ({@link io.walsink.recovery.BucketRowsReset}); {@link io.walsink.recovery.GenerationMerge} makes a
 * merge's commits; {@link io.walsink.recovery.CompactionLease} keeps one of them at a time on a
 * table. docs/architecture.md, "The restore protocol", states the steps and their crash points.
 * Sits on {@code shard}, {@code format} and {@code storage}; {@code maintenance}, {@code flink} and
 * {@code table} use it.
 */
package io.walsink.recovery;
