package io.walsink.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A generation's deleted keys removed from the base table with lance-core's plain delete (a
 * predicate {@code key IN (...)}), for a base table with an index on its key: there lance-core
 * 7.0.0's merge-insert deletes nothing (see {@link BaseIndexRefresh#keyIndexes}), while its
 * delete finds the rows through the same index correctly. Only a single key column of an integer
 * or string type with a plain name is written as a predicate; others are refused by {@link
 * #supports}.
 */
final class KeyDeletes {
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int KEYS_PER_DELETE = 1_000;

    private KeyDeletes() {}

    static boolean supports(List<Field> keyFields) {
        if (keyFields.size() != 1
                || !PLAIN_NAME.matcher(keyFields.get(0).getName()).matches()) {
            return false;
        }
        ArrowType type = keyFields.get(0).getType();
        return type instanceof ArrowType.Int || type instanceof ArrowType.Utf8;
    }

    /** Deletes the keys of {@code sstable}'s rows matching {@code tombstones} from {@code base}. */
    static long delete(Dataset base, Dataset sstable, String tombstones, Field key, BufferAllocator allocator) {
        List<String> literals = new ArrayList<>();
        ScanOptions scan = new ScanOptions.Builder()
                .columns(List.of(key.getName()))
                .filter(tombstones)
                .build();
        try (LanceScanner scanner = LanceScanner.create(sstable, scan, allocator);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                FieldVector values = reader.getVectorSchemaRoot().getVector(0);
                for (int i = 0; i < values.getValueCount(); i++) {
                    if (!values.isNull(i)) {
                        literals.add(literal(values, i));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the deleted keys of " + sstable.uri() + " failed", e);
        } catch (Exception e) {
            throw new IllegalStateException("reading the deleted keys of " + sstable.uri() + " failed", e);
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
