/**
 * The SQL scan source: one split per bucket, each merging its bucket's base rows with its shard.
 */
package io.walsink.table.scan;
