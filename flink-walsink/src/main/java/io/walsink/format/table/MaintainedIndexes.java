package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Where a table's maintained indexes are declared: their definitions in the base table's schema
 * metadata under {@value #METADATA_PREFIX}{@code <name>}, written when the table is created (what
 * walsink's writers and compactor build from); their names in the MemWAL index's {@code
 * maintainedIndexes} (what Lance's readers check), added by the compactor once it has built each on
 * the base table.
 */
@Internal
public final class MaintainedIndexes {
    public static final String METADATA_PREFIX = "walsink:maintained-index:";

    private MaintainedIndexes() {}

    /**
     * The maintained indexes of {@code table}: every definition in its schema metadata, in name
     * order. The MemWAL index lists those already built on the base table ({@link
     * MemWalMaintainedIndexes}).
     *
     * @throws FormatException if a definition is malformed, or the MemWAL index lists an index
     *     walsink has no definition of (a table set up by another tool): walsink would not know what
     *     to build for its SSTables
     */
    public static List<MaintainedIndex> of(TableInfo table) {
        Map<String, MaintainedIndex> indexes = new TreeMap<>();
        declaredIn(table.uri(), table.schema()).forEach(i -> indexes.put(i.name(), i));
        for (String listed : table.memWal().maintainedIndexes()) {
            if (!indexes.containsKey(listed)) {
                throw new FormatException(
                        table.uri(),
                        "the MemWAL index maintains index '" + listed + "', but the table's schema metadata holds no "
                                + METADATA_PREFIX + listed + " definition walsink could build SSTable indexes from",
                        null);
            }
        }
        return List.copyOf(indexes.values());
    }

    /**
     * The definitions in the schema metadata of the table at {@code uri}, in name order, without
     * the MemWAL index's check (for a planner that has only the schema).
     *
     * @throws FormatException if a definition is malformed
     */
    public static List<MaintainedIndex> declaredIn(String uri, Schema schema) {
        Map<String, String> metadata = schema.getCustomMetadata() == null ? Map.of() : schema.getCustomMetadata();
        Map<String, MaintainedIndex> indexes = new TreeMap<>();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey().startsWith(METADATA_PREFIX)) {
                String name = e.getKey().substring(METADATA_PREFIX.length());
                try {
                    indexes.put(name, MaintainedIndex.parse(name, e.getValue()));
                } catch (IllegalArgumentException malformed) {
                    throw new FormatException(uri, malformed.getMessage(), malformed);
                }
            }
        }
        return List.copyOf(indexes.values());
    }

    /** The names, as the MemWAL index lists them. */
    public static List<String> names(List<MaintainedIndex> indexes) {
        return indexes.stream().map(MaintainedIndex::name).toList();
    }

    /**
     * {@code schema} with the definitions of {@code indexes} in its metadata, for creating a table.
     *
     * @throws IllegalArgumentException for a name given twice, a missing column, or a column whose
     *     type the index cannot take; nothing is written
     */
    static Schema declare(Schema schema, List<MaintainedIndex> indexes) {
        if (indexes.isEmpty()) {
            return schema;
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        if (schema.getCustomMetadata() != null) {
            metadata.putAll(schema.getCustomMetadata());
        }
        Set<String> names = new HashSet<>();
        for (MaintainedIndex index : indexes) {
            if (!names.add(index.name())) {
                throw new IllegalArgumentException("index '" + index.name() + "' is declared twice");
            }
            Field field = schema.getFields().stream()
                    .filter(f -> f.getName().equals(index.column()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("index '" + index.name() + "': column '"
                            + index.column() + "' is not in the table's columns "
                            + schema.getFields().stream().map(Field::getName).toList()));
            checkColumnType(index, field);
            metadata.put(METADATA_PREFIX + index.name(), index.encode());
        }
        return new Schema(schema.getFields(), metadata);
    }

    /**
     * Checks that a job's declared indexes are the table's: the set is fixed when the table is
     * created.
     *
     * @throws IllegalArgumentException naming both sets
     */
    public static void checkDeclared(List<MaintainedIndex> declared, TableInfo table) {
        if (declared.isEmpty()) {
            return; // the table's own definitions are used
        }
        List<MaintainedIndex> stored = of(table);
        if (!new HashSet<>(declared).equals(new HashSet<>(stored))) {
            throw new IllegalArgumentException("the table at " + table.uri() + " maintains indexes " + stored
                    + ", but the job declares " + declared
                    + "; maintained indexes are fixed when the table is created (declare none to use the table's)");
        }
    }

    private static void checkColumnType(MaintainedIndex index, Field field) {
        ArrowType type = field.getType();
        boolean fits;
        String wanted;
        if (index.type().isVector()) {
            fits = type instanceof ArrowType.FixedSizeList
                    && field.getChildren().size() == 1
                    && field.getChildren().get(0).getType() instanceof ArrowType.FloatingPoint fp
                    && fp.getPrecision() != FloatingPointPrecision.HALF;
            wanted = "a vector column (a fixed-size list of float32 or float64: declare its dimension)";
        } else if (index.type() == MaintainedIndex.Type.INVERTED) {
            fits = type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8;
            wanted = "a string column";
        } else {
            fits = field.getChildren().isEmpty() && !(type instanceof ArrowType.Null);
            wanted = "a column of a primitive type";
        }
        if (!fits) {
            throw new IllegalArgumentException("index '" + index.name() + "' (" + index.type() + ") needs " + wanted
                    + ", but column '" + field.getName() + "' is " + type
                    + (field.getChildren().isEmpty()
                            ? ""
                            : " of " + field.getChildren().get(0).getType()));
        }
        if (index.type() == MaintainedIndex.Type.IVF_PQ) {
            int dimension = ((ArrowType.FixedSizeList) type).getListSize();
            if (dimension % index.numSubVectors() != 0) {
                // lance-core would refuse it only at the first base build, long after the job started
                throw new IllegalArgumentException("index '" + index.name() + "': num-sub-vectors "
                        + index.numSubVectors() + " must divide the dimension of column '" + field.getName()
                        + "' (" + dimension + ")");
            }
        }
    }
}
