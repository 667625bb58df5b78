package io.walsink.read.search;

import io.walsink.format.table.MaintainedIndex;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Distances to a query vector computed as Lance computes its {@code _distance} (so rows compared
 * here rank with rows lance-core's search returned): L2 squared, cosine 1 - similarity, dot 1 -
 * product.
 */
final class VectorDistance {
    private final MaintainedIndex.Metric metric;
    private final float[] query;
    private final double queryNorm;

    VectorDistance(MaintainedIndex.Metric metric, float[] query) {
        this.metric = metric;
        this.query = query.clone();
        double n = 0;
        for (float v : query) {
            n += (double) v * v;
        }
        this.queryNorm = Math.sqrt(n);
    }

    /** The distance to {@code vector}, of the query's dimension; NaN for null (Lance's search skips such rows). */
    double to(float[] vector) {
        if (vector == null) {
            return Double.NaN;
        }
        double dot = 0;
        double l2 = 0;
        double norm = 0;
        for (int i = 0; i < query.length; i++) {
            double v = vector[i];
            double d = v - query[i];
            dot += v * query[i];
            l2 += d * d;
            norm += v * v;
        }
        return switch (metric) {
            case L2 -> l2;
            case COSINE -> 1 - dot / (Math.sqrt(norm) * queryNorm);
            case DOT -> 1 - dot;
        };
    }

    /** Row {@code row} of a fixed-size-list column of floats (float64 narrowed), or null. */
    static float[] vectorAt(FieldVector column, int row) {
        if (column.isNull(row)) {
            return null;
        }
        FixedSizeListVector list = (FixedSizeListVector) column;
        int dimension = list.getListSize();
        FieldVector values = (FieldVector) list.getDataVector();
        float[] vector = new float[dimension];
        int first = row * dimension;
        if (values instanceof Float4Vector f) {
            for (int i = 0; i < dimension; i++) {
                vector[i] = f.get(first + i);
            }
        } else if (values instanceof Float8Vector d) {
            for (int i = 0; i < dimension; i++) {
                vector[i] = (float) d.get(first + i);
            }
        } else {
            throw new IllegalArgumentException("vectors of " + values.getField().getType() + " in column '"
                    + column.getName() + "' cannot be searched");
        }
        return vector;
    }
}
