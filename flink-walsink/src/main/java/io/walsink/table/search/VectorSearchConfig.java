package io.walsink.table.search;

import io.walsink.annotation.Internal;
import io.walsink.read.NearestQuery;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@code VECTOR_SEARCH} searches a walsink table ({@code vector-search.*}).
 *
 * @param ef HNSW's search breadth in the base table's index; 0: lance-core's default
 * @param nprobes IVF partitions probed; 0: lance-core's default
 * @param refineFactor re-rank this many times top_k of the index's answers exactly; 0: none
 * @param refreshInterval how long a pinned snapshot answers before the table is checked again
 */
@Internal
public record VectorSearchConfig(int ef, int nprobes, int refineFactor, Duration refreshInterval)
        implements Serializable {

    /**
     * @throws IllegalArgumentException naming the option that is negative
     */
    public VectorSearchConfig {
        Objects.requireNonNull(refreshInterval, "refreshInterval");
        notNegative("vector-search.ef", ef);
        notNegative("vector-search.nprobes", nprobes);
        notNegative("vector-search.refine-factor", refineFactor);
        if (refreshInterval.isNegative()) {
            throw new IllegalArgumentException(
                    "'vector-search.refresh-interval' must not be negative, got " + refreshInterval);
        }
    }

    /** The query of {@code k} rows nearest {@code vector} in {@code column}, with these options. */
    NearestQuery query(String column, float[] vector, int k) {
        return NearestQuery.of(column, vector, k)
                .withEf(ef)
                .withNprobes(nprobes)
                .withRefineFactor(refineFactor);
    }

    private static void notNegative(String option, int value) {
        if (value < 0) {
            throw new IllegalArgumentException("'" + option + "' must not be negative, got " + value);
        }
    }
}
