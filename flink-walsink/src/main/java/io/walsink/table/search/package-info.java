/**
 * {@code VECTOR_SEARCH} on a walsink table: the Flink function that answers each search with the
 * nearest live rows of the committed table through {@link io.walsink.read.search.VectorSearcher}, and its
 * search and refresh settings.
 */
package io.walsink.table.search;
