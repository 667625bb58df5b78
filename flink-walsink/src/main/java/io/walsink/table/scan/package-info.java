/**
 * The SQL scan source: one split per bucket, each merging its bucket's base rows with its shard,
 * all of them as of one snapshot the enumerator pins when the scan starts.
 */
package io.walsink.table.scan;
