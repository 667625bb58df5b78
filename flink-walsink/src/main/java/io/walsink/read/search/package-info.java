/**
 * Searches of a pinned snapshot: the nearest rows to a vector and the best full-text matches
 * ({@link io.walsink.read.search.SnapshotSearch}), and a vector column searched again and again
 * from one snapshot while it is current ({@link io.walsink.read.search.VectorSearcher}). Takes and
 * returns the public API's query and answer values; built on {@code read.snapshot}.
 */
package io.walsink.read.search;
