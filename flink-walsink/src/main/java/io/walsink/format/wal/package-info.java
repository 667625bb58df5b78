/**
 * WAL entries: the Arrow IPC codec, the storage schema profiles and the per-shard log of positions.
 */
package io.walsink.format.wal;
