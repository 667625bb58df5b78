package io.walsink.read;

import io.walsink.format.table.MaintainedIndex;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Distances between a query vector and the vectors of a fixed-size-list column, computed as Lance
 * computes its {@code _distance} (so rows compared here rank with rows lance-core's search
 * returned): L2 squared, cosine 1 - similarity, dot 1 - product.
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

    /**
     * The distance to the vector of row {@code row}, or NaN when it is null (Lance's search skips
     * such rows).
     *
     * @throws IllegalArgumentException if the column's dimension is not the query's
     */
    double to(FieldVector column, int row) {
        if (column.isNull(row)) {
            return Double.NaN;
        }
        FixedSizeListVector list = (FixedSizeListVector) column;
        if (list.getListSize() != query.length) {
            throw new IllegalArgumentException("column '" + column.getName() + "' holds vectors of dimension "
                    + list.getListSize() + ", the query vector has " + query.length);
        }
        FieldVector values = (FieldVector) list.getDataVector();
        int first = row * query.length;
        double dot = 0;
        double l2 = 0;
        double norm = 0;
        for (int i = 0; i < query.length; i++) {
            double v = value(values, first + i);
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

    private static double value(FieldVector values, int index) {
        if (values instanceof Float4Vector f) {
            return f.get(index);
        }
        if (values instanceof Float8Vector d) {
            return d.get(index);
        }
        throw new IllegalArgumentException("vectors of " + values.getField().getType() + " cannot be searched");
    }
}
