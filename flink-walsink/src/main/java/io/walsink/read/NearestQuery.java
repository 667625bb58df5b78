package io.walsink.read;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.table.MaintainedIndex;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * A nearest-neighbour query of a walsink table ({@link TableReader#nearest}): the {@code k} live
 * rows whose vector in {@code column} is nearest {@code vector}. The search options are lance-core's
 * for the base table's vector index (0 keeps lance-core's default); the rows above the base table
 * (published SSTables, and the WAL tail in {@link ReadMode#LATEST}) are few by design and are
 * compared exactly.
 *
 * @param ef HNSW's search breadth (lance-core's default is 1.5 k: raise it for recall)
 * @param nprobes IVF partitions probed
 * @param refineFactor re-rank {@code k * refineFactor} index answers by their exact distance
 * @param metric the distance; empty: the metric of the table's maintained index on the column, or
 *     L2 when it has none
 */
@PublicEvolving
public record NearestQuery(
        String column,
        float[] vector,
        int k,
        int ef,
        int nprobes,
        int refineFactor,
        Optional<MaintainedIndex.Metric> metric) {

    public NearestQuery {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(vector, "vector");
        Objects.requireNonNull(metric, "metric");
        if (vector.length == 0) {
            throw new IllegalArgumentException("the query vector for column '" + column + "' is empty");
        }
        for (int i = 0; i < vector.length; i++) {
            if (!Float.isFinite(vector[i])) {
                throw new IllegalArgumentException(
                        "the query vector for column '" + column + "' holds " + vector[i] + " at index " + i);
            }
        }
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive, got " + k);
        }
        if (ef < 0 || nprobes < 0 || refineFactor < 0) {
            throw new IllegalArgumentException("ef, nprobes and refine factor must not be negative, got " + ef + ", "
                    + nprobes + ", " + refineFactor);
        }
        vector = vector.clone();
    }

    /** The {@code k} nearest {@code vector} in {@code column}, with lance-core's default search options. */
    public static NearestQuery of(String column, float[] vector, int k) {
        return new NearestQuery(column, vector, k, 0, 0, 0, Optional.empty());
    }

    public NearestQuery withEf(int ef) {
        return new NearestQuery(column, vector, k, ef, nprobes, refineFactor, metric);
    }

    public NearestQuery withNprobes(int nprobes) {
        return new NearestQuery(column, vector, k, ef, nprobes, refineFactor, metric);
    }

    public NearestQuery withRefineFactor(int refineFactor) {
        return new NearestQuery(column, vector, k, ef, nprobes, refineFactor, metric);
    }

    public NearestQuery withMetric(MaintainedIndex.Metric metric) {
        return new NearestQuery(column, vector, k, ef, nprobes, refineFactor, Optional.of(metric));
    }

    @Override
    public float[] vector() {
        return vector.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NearestQuery q
                && column.equals(q.column)
                && Arrays.equals(vector, q.vector)
                && k == q.k
                && ef == q.ef
                && nprobes == q.nprobes
                && refineFactor == q.refineFactor
                && metric.equals(q.metric);
    }

    @Override
    public int hashCode() {
        return Objects.hash(column, Arrays.hashCode(vector), k, ef, nprobes, refineFactor, metric);
    }

    @Override
    public String toString() {
        return "NearestQuery[column=" + column + ", dimension=" + vector.length + ", k=" + k + ", ef=" + ef
                + ", nprobes=" + nprobes + ", refineFactor=" + refineFactor + ", metric=" + metric + "]";
    }
}
