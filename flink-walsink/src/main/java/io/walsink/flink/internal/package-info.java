/**
 * The keyed shard-writer operator and its parts (buckets, I/O, publication ledger, memory, job
 * lineage); not for users.
 */
package io.walsink.flink.internal;
