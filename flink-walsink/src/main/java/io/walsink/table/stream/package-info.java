/**
 * The continuous SQL source: the bounded scan's pinned snapshot first (optionally), then every
 * generation each shard publishes, as an upsert changelog, with each shard's position in the
 * checkpoint.
 */
package io.walsink.table.stream;
