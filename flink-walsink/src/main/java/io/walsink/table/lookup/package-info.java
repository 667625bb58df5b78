/**
 * Lookup joins on a walsink table: the Flink function that answers a probe by primary key
 * through {@link io.walsink.read.lookup.KeyLookup}, the input format that loads Flink's FULL cache from
 * a pinned snapshot, and their cache, reload, retry and refresh settings.
 */
package io.walsink.table.lookup;
