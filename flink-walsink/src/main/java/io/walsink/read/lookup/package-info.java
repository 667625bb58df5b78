/**
 * Point lookups by primary key ({@link io.walsink.read.lookup.KeyLookup}), for lookup joins:
 * each key's newest committed row, reading only the bucket's shard and what lance-core's key
 * filter keeps of each dataset. Built on {@code read.snapshot}.
 */
package io.walsink.read.lookup;
