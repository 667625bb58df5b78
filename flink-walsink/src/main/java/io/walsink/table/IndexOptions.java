package io.walsink.table;

import io.walsink.format.table.MaintainedIndex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.api.ValidationException;

/**
 * The maintained-index options of a walsink table, {@code 'index.<name>.<property>'}: {@code
 * column} and {@code type} (IVF_PQ, IVF_HNSW_SQ, BTREE, BITMAP, INVERTED) are required, vector
 * indexes take {@code metric} (l2, cosine, dot), {@code num-partitions}, {@code hnsw-m}, {@code
 * hnsw-ef-construction} and, for IVF_PQ, {@code num-sub-vectors}. Keys are dynamic (one set per index), so they are checked here, by name.
 */
final class IndexOptions {
    static final String PREFIX = "index.";
    private static final Set<String> PROPERTIES =
            Set.of("column", "type", "metric", "num-partitions", "num-sub-vectors", "hnsw-m", "hnsw-ef-construction");
    /**
     * LanceDB's LSM search takes no query options and searches each probed partition's HNSW graph
     * with Lance's default breadth: with one partition it found 0.7-0.75 of the ten nearest of
     * 10,000 random 128-d rows, with eight 0.94 (LanceDbRecallTest).
     */
    static final int DEFAULT_NUM_PARTITIONS = 8;

    private IndexOptions() {}

    /** @return the declared indexes, in the order their first option was given */
    static List<MaintainedIndex> from(Map<String, String> tableOptions) {
        Map<String, Map<String, String>> byName = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : tableOptions.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            int dot = key.indexOf('.', PREFIX.length());
            String property = dot < 0 ? "" : key.substring(dot + 1);
            if (dot <= PREFIX.length() || !PROPERTIES.contains(property)) {
                throw new ValidationException("Unsupported option '" + key + "': an index takes 'index.<name>.<p>' with"
                        + " p one of " + PROPERTIES.stream().sorted().toList());
            }
            byName.computeIfAbsent(key.substring(PREFIX.length(), dot), n -> new LinkedHashMap<>())
                    .put(property, e.getValue().trim());
        }
        List<MaintainedIndex> indexes = new ArrayList<>();
        byName.forEach((name, properties) -> indexes.add(index(name, properties)));
        return indexes;
    }

    private static MaintainedIndex index(String name, Map<String, String> p) {
        String column = required(name, p, "column");
        MaintainedIndex.Type type = enumOf(MaintainedIndex.Type.class, name, "type", required(name, p, "type"));
        try {
            return new MaintainedIndex(
                    name,
                    column,
                    type,
                    p.containsKey("metric")
                            ? enumOf(MaintainedIndex.Metric.class, name, "metric", p.get("metric"))
                            : null,
                    positive(name, p, "num-partitions", type.isVector() ? DEFAULT_NUM_PARTITIONS : 0),
                    positive(name, p, "num-sub-vectors", type == MaintainedIndex.Type.IVF_PQ ? 16 : 0),
                    positive(name, p, "hnsw-m", 0),
                    positive(name, p, "hnsw-ef-construction", 0));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Invalid options of index '" + name + "': " + e.getMessage(), e);
        }
    }

    private static String required(String name, Map<String, String> p, String property) {
        String value = p.get(property);
        if (value == null || value.isEmpty()) {
            throw new ValidationException("Index '" + name + "' needs option 'index." + name + "." + property + "'");
        }
        return value;
    }

    private static int positive(String name, Map<String, String> p, String property, int absent) {
        String value = p.get(property);
        if (value == null) {
            return absent;
        }
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new ValidationException(
                "Option 'index." + name + "." + property + "' must be a positive integer, got '" + value + "'");
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, String name, String property, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            List<String> allowed = new ArrayList<>();
            for (E constant : type.getEnumConstants()) {
                allowed.add(constant.name());
            }
            throw new ValidationException(
                    "Option 'index." + name + "." + property + "' must be one of " + allowed + ", got '" + value + "'");
        }
    }
}
