package io.walsink.format.table;

import io.walsink.annotation.PublicEvolving;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An index the table keeps fresh under streaming writes: listed in the MemWAL index's {@code
 * maintainedIndexes}, built for every SSTable before it is published and on the base table by the
 * compactor, as Lance's MemWAL writers do. Lance's LSM readers (LanceDB's default vector and
 * full-text search) refuse a table whose searched index is not maintained, and search a flushed
 * generation through its own index only.
 *
 * <p>Declared when the table is created (the set cannot change later: lance-core 7.0.0 writes it
 * only at MemWAL initialisation); the declaration is kept in the table's schema metadata, so every
 * writer and the compactor build the same indexes without being told.
 *
 * @param name the index name, the same on the base table and on every SSTable
 * @param column the indexed column
 * @param type the base table's index type
 * @param metric the distance of a vector index ({@code null} for the others)
 * @param numPartitions IVF partitions of the base table's vector index (0 for the others)
 * @param numSubVectors PQ sub-vectors of an {@code IVF_PQ} index (0 for the others)
 * @param hnswM HNSW graph degree of the index's HNSW graphs (an {@code IVF_HNSW_SQ} base index's,
 *     and every vector index's per-SSTable graph); 0: walsink's default, {@value IndexBuilds#DEFAULT_HNSW_M}
 * @param hnswEfConstruction HNSW build breadth of the same graphs; 0: walsink's default, {@value
 *     IndexBuilds#DEFAULT_HNSW_EF_CONSTRUCTION}
 */
@PublicEvolving
public record MaintainedIndex(
        String name,
        String column,
        Type type,
        Metric metric,
        int numPartitions,
        int numSubVectors,
        int hnswM,
        int hnswEfConstruction)
        implements Serializable {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    /** The index types walsink can maintain. */
    @PublicEvolving
    public enum Type {
        /** Vector: IVF partitions, product-quantised; SSTables get IVF_HNSW_SQ (as Lance's flush builds). */
        IVF_PQ(true),
        /** Vector: IVF partitions, HNSW graphs over scalar-quantised vectors. */
        IVF_HNSW_SQ(true),
        /**
         * Vector: IVF partitions of full vectors, searched exactly within each probed partition:
         * exact answers when every partition is probed (LanceDB's default probing covers a few
         * dozen), at the cost of comparing every vector of those partitions.
         */
        IVF_FLAT(true),
        /** Scalar: sorted values, for equality and range filters. */
        BTREE(false),
        /** Scalar: one bitmap per value, for low-cardinality columns. */
        BITMAP(false),
        /** Full text: an inverted index of the column's tokens (BM25). */
        INVERTED(false);

        private final boolean vector;

        Type(boolean vector) {
            this.vector = vector;
        }

        public boolean isVector() {
            return vector;
        }
    }

    /** Distances of a vector index, as Lance names them. */
    @PublicEvolving
    public enum Metric {
        L2,
        COSINE,
        DOT
    }

    public MaintainedIndex {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(type, "type");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("index name '" + name
                    + "' must start with a letter and hold only letters, digits and '_'"
                    + " (Lance reserves names starting with '__')");
        }
        if (type.isVector()) {
            metric = metric == null ? Metric.L2 : metric;
            if (numPartitions < 1) {
                throw new IllegalArgumentException(
                        "index '" + name + "': num-partitions must be positive, got " + numPartitions);
            }
            if (type == Type.IVF_PQ && numSubVectors < 1) {
                throw new IllegalArgumentException(
                        "index '" + name + "': num-sub-vectors must be positive, got " + numSubVectors);
            }
            if (type != Type.IVF_PQ && numSubVectors != 0) {
                throw new IllegalArgumentException(
                        "index '" + name + "': num-sub-vectors applies to IVF_PQ only, not " + type);
            }
            if (hnswM < 0 || hnswEfConstruction < 0) {
                throw new IllegalArgumentException("index '" + name + "': hnsw-m and hnsw-ef-construction must be"
                        + " positive (or 0 for the default), got " + hnswM + " and " + hnswEfConstruction);
            }
        } else if (metric != null
                || numPartitions != 0
                || numSubVectors != 0
                || hnswM != 0
                || hnswEfConstruction != 0) {
            throw new IllegalArgumentException("index '" + name
                    + "': metric, num-partitions, num-sub-vectors and the hnsw parameters apply to vector indexes,"
                    + " not " + type);
        }
    }

    /** An index with walsink's default HNSW parameters. */
    public MaintainedIndex(String name, String column, Type type, Metric metric, int numPartitions, int numSubVectors) {
        this(name, column, type, metric, numPartitions, numSubVectors, 0, 0);
    }

    /** An IVF_PQ vector index with L2 distance. */
    public static MaintainedIndex ivfPq(String name, String column, int numPartitions, int numSubVectors) {
        return new MaintainedIndex(name, column, Type.IVF_PQ, Metric.L2, numPartitions, numSubVectors);
    }

    /** An IVF_FLAT vector index with L2 distance. */
    public static MaintainedIndex ivfFlat(String name, String column, int numPartitions) {
        return new MaintainedIndex(name, column, Type.IVF_FLAT, Metric.L2, numPartitions, 0);
    }

    /** An IVF_HNSW_SQ vector index with L2 distance. */
    public static MaintainedIndex ivfHnswSq(String name, String column, int numPartitions) {
        return new MaintainedIndex(name, column, Type.IVF_HNSW_SQ, Metric.L2, numPartitions, 0);
    }

    /** A scalar ({@code BTREE}, {@code BITMAP}) or full-text ({@code INVERTED}) index. */
    public static MaintainedIndex scalar(String name, String column, Type type) {
        if (type.isVector()) {
            throw new IllegalArgumentException("index '" + name + "': " + type + " is a vector index");
        }
        return new MaintainedIndex(name, column, type, null, 0, 0);
    }

    /** This index with distance {@code metric} (vector indexes only). */
    public MaintainedIndex withMetric(Metric metric) {
        if (!type.isVector()) {
            throw new IllegalArgumentException("index '" + name + "': a metric applies to vector indexes, not " + type);
        }
        return new MaintainedIndex(
                name,
                column,
                type,
                Objects.requireNonNull(metric, "metric"),
                numPartitions,
                numSubVectors,
                hnswM,
                hnswEfConstruction);
    }

    /**
     * This index with HNSW graph degree {@code m} and build breadth {@code efConstruction} (vector
     * indexes only): larger graphs find more of the true nearest at a given search breadth, which
     * matters to readers that cannot raise the breadth (LanceDB's LSM search), and take longer to
     * build for every SSTable.
     */
    public MaintainedIndex withHnsw(int m, int efConstruction) {
        if (!type.isVector()) {
            throw new IllegalArgumentException(
                    "index '" + name + "': HNSW parameters apply to vector indexes, not " + type);
        }
        if (m < 1 || efConstruction < 1) {
            throw new IllegalArgumentException("index '" + name + "': hnsw-m and hnsw-ef-construction must be positive,"
                    + " got " + m + " and " + efConstruction);
        }
        return new MaintainedIndex(name, column, type, metric, numPartitions, numSubVectors, m, efConstruction);
    }

    /** The declaration as kept in the table's schema metadata; {@link #parse} reads it back. */
    String encode() {
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put("column", column);
        parts.put("type", type.name());
        if (type.isVector()) {
            parts.put("metric", metric.name());
            parts.put("num-partitions", Integer.toString(numPartitions));
        }
        if (type == Type.IVF_PQ) {
            parts.put("num-sub-vectors", Integer.toString(numSubVectors));
        }
        if (hnswM != 0) { // absent for the defaults: tables written before these existed read alike
            parts.put("hnsw-m", Integer.toString(hnswM));
        }
        if (hnswEfConstruction != 0) {
            parts.put("hnsw-ef-construction", Integer.toString(hnswEfConstruction));
        }
        StringBuilder out = new StringBuilder();
        parts.forEach((k, v) ->
                out.append(out.length() == 0 ? "" : ";").append(k).append('=').append(v));
        return out.toString();
    }

    /** @throws IllegalArgumentException naming the part that is malformed */
    static MaintainedIndex parse(String name, String encoded) {
        Map<String, String> parts = new LinkedHashMap<>();
        for (String part : encoded.split(";")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "maintained index '" + name + "': malformed part '" + part + "' in '" + encoded + "'");
            }
            parts.put(part.substring(0, eq), part.substring(eq + 1));
        }
        Type type = Type.valueOf(required(parts, "type", name).toUpperCase(Locale.ROOT));
        String metric = parts.get("metric");
        return new MaintainedIndex(
                name,
                required(parts, "column", name),
                type,
                metric == null ? null : Metric.valueOf(metric.toUpperCase(Locale.ROOT)),
                Integer.parseInt(parts.getOrDefault("num-partitions", "0")),
                Integer.parseInt(parts.getOrDefault("num-sub-vectors", "0")),
                Integer.parseInt(parts.getOrDefault("hnsw-m", "0")),
                Integer.parseInt(parts.getOrDefault("hnsw-ef-construction", "0")));
    }

    private static String required(Map<String, String> parts, String key, String name) {
        String value = parts.get(key);
        if (value == null) {
            throw new IllegalArgumentException("maintained index '" + name + "': no " + key + " in " + parts);
        }
        return value;
    }
}
