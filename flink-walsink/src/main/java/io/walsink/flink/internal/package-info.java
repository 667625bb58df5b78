/**
 * The keyed shard-writer operator and its parts (buckets, input, I/O, maintenance), over
 * {@code memory}, {@code state} (checkpointed descriptors and job lineage) and {@code routing}
 * (buckets to subtasks); not for users.
 */
package io.walsink.flink.internal;
