/**
 * The SQL scan source: splits of base fragments (without the keys the shards override) and one
 * split per bucket for its shard's rows above the base, all of them as of one snapshot the
 * enumerator pins when the scan starts.
 */
package io.walsink.table.scan;
