package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.table.TableInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.index.Index;
import org.lance.schema.LanceField;

/**
 * Keys removed from the base table with lance-core's plain delete (a predicate {@code key IN
 * (...)}), for a base table with an index on its key: there lance-core 7.0.0's merge-insert deletes
 * none of the rows the index covers (its delete-only merge commits, and the keys stay: reproduced on
 * a 20,000-row base table with a BTREE on the key, where a plain delete of the same keys removed
 * them), while its delete finds the rows through the same index correctly. Every base-table delete
 * walsink makes (a compactor's tombstones, a restore's reset) goes through {@link #needed}. Only a
 * single key column of an integer or string type with a plain name is written as a predicate;
 * others are refused by {@link #supports}.
 */
@Internal
public final class KeyDeletes {
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int KEYS_PER_DELETE = 1_000;

    private KeyDeletes() {}

    /** The table's key columns as fields of its schema. */
    public static List<Field> keyFields(TableInfo table) {
        return table.primaryKey().stream().map(c -> table.schema().findField(c)).toList();
    }

    /** Whether a key of these columns can be written as a delete predicate. */
    public static boolean supports(List<Field> keyFields) {
        if (keyFields.size() != 1
                || !PLAIN_NAME.matcher(keyFields.get(0).getName()).matches()) {
            return false;
        }
        ArrowType type = keyFields.get(0).getType();
        return type instanceof ArrowType.Int || type instanceof ArrowType.Utf8;
    }

    /** Whether deletes from {@code base} must be plain deletes: it has an index on exactly its key. */
    public static boolean needed(Dataset base, List<String> keyColumns) {
        return !keyIndexes(base, keyColumns).isEmpty();
    }

    /** The user indexes on exactly the key columns (system indexes, named {@code __...}, left out). */
    public static List<String> keyIndexes(Dataset base, List<String> keyColumns) {
        Map<String, Integer> ids = new HashMap<>();
        for (LanceField f : base.getLanceSchema().fields()) {
            ids.put(f.getName(), f.getId());
        }
        Set<Integer> key = new HashSet<>();
        keyColumns.forEach(c -> key.add(ids.get(c)));
        Set<String> names = new TreeSet<>();
        for (Index index : base.getIndexes()) {
            if (!index.name().startsWith("__") && new HashSet<>(index.fields()).equals(key)) {
                names.add(index.name());
            }
        }
        return List.copyOf(names);
    }

    /**
     * Deletes from {@code base} the keys in column {@code key} of every row {@code keys} yields, in
     * commits of up to 1,000 keys; {@code base} is left at the latest version.
     *
     * @return how many keys were named
     */
    public static long delete(Dataset base, Field key, ArrowReader keys) throws Exception {
        List<String> literals = new ArrayList<>();
        while (keys.loadNextBatch()) {
            FieldVector values = keys.getVectorSchemaRoot().getVector(key.getName());
            for (int i = 0; i < keys.getVectorSchemaRoot().getRowCount(); i++) {
                if (!values.isNull(i)) {
                    literals.add(literal(values, i));
                }
            }
        }
        for (int from = 0; from < literals.size(); from += KEYS_PER_DELETE) {
            List<String> chunk = literals.subList(from, Math.min(literals.size(), from + KEYS_PER_DELETE));
            base.delete(key.getName() + " IN (" + String.join(", ", chunk) + ")");
            base.checkoutLatest();
        }
        return literals.size();
    }

    private static String literal(FieldVector values, int i) {
        if (values instanceof BaseIntVector ints) {
            return Long.toString(ints.getValueAsLong(i));
        }
        String s = new String(((VarCharVector) values).get(i), StandardCharsets.UTF_8);
        return "'" + s.replace("'", "''") + "'";
    }
}
