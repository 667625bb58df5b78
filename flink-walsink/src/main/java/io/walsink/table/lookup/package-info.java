/**
 * Lookup joins on a walsink table: the Flink function that answers a probe by primary key
 * through {@link io.walsink.read.KeyLookup}, and its cache and refresh settings.
 */
package io.walsink.table.lookup;
