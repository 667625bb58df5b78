package io.walsink.format.wal;

import io.walsink.format.ColumnsAddedLater;
import io.walsink.format.FormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Compares a schema read or handed in with the storage schema: same columns, same order, same
 * types (nested children included), and no nulls allowed where the storage schema forbids them.
 * Field metadata is not compared: it differs between profiles and carries no row data.
 */
final class WalSchemaCheck {
    private WalSchemaCheck() {}

    /**
     * As {@link #requireMatch}, except that columns added to the table after the entry was written
     * may be missing (nullable ones only; {@link ColumnsAddedLater}).
     *
     * @return whether columns are missing
     */
    static boolean requireReadable(String location, Schema expected, Schema actual) {
        List<Field> missing;
        try {
            missing = ColumnsAddedLater.missing(expected.getFields(), actual, location);
        } catch (FormatException e) {
            throw new WalSchemaMismatchException(
                    location, firstMissing(expected, actual), "missing; expected NOT NULL");
        }
        if (missing.isEmpty()) {
            requireMatch(location, expected, actual);
            return false;
        }
        List<Field> present = new ArrayList<>(expected.getFields());
        present.removeAll(missing);
        requireMatch(location, new Schema(present, expected.getCustomMetadata()), actual);
        return true;
    }

    private static String firstMissing(Schema expected, Schema actual) {
        return expected.getFields().stream()
                .map(Field::getName)
                .filter(n ->
                        actual.getFields().stream().noneMatch(f -> f.getName().equals(n)))
                .findFirst()
                .orElse("?");
    }

    static void requireMatch(String location, Schema expected, Schema actual) {
        List<Field> want = expected.getFields();
        List<Field> got = actual.getFields();
        List<String> gotNames = new ArrayList<>();
        for (Field f : got) {
            gotNames.add(f.getName());
        }
        for (Field w : want) {
            if (!gotNames.contains(w.getName())) {
                throw new WalSchemaMismatchException(location, w.getName(), "missing; expected " + describe(w));
            }
        }
        for (Field g : got) {
            if (want.stream().noneMatch(w -> w.getName().equals(g.getName()))) {
                throw new WalSchemaMismatchException(location, g.getName(), "not in the storage schema " + names(want));
            }
        }
        for (int i = 0; i < want.size(); i++) {
            Field w = want.get(i);
            Field g = got.get(i);
            if (!w.getName().equals(g.getName())) {
                throw new WalSchemaMismatchException(
                        location,
                        g.getName(),
                        "at position " + i + ", expected '" + w.getName() + "' there; column order is " + names(want));
            }
            requireSameField(location, w.getName(), w, g);
        }
    }

    private static void requireSameField(String location, String path, Field want, Field got) {
        if (!Objects.equals(want.getType(), got.getType())
                || want.getChildren().size() != got.getChildren().size()) {
            throw new WalSchemaMismatchException(
                    location, path, "expected " + describe(want) + ", got " + describe(got));
        }
        if (!want.isNullable() && got.isNullable()) {
            throw new WalSchemaMismatchException(location, path, "is nullable, expected NOT NULL");
        }
        for (int i = 0; i < want.getChildren().size(); i++) {
            Field wc = want.getChildren().get(i);
            Field gc = got.getChildren().get(i);
            // Child names (e.g. a list's "item" vs "element") differ between writers; types must not.
            requireSameField(location, path + "." + wc.getName(), wc, gc);
        }
    }

    private static String describe(Field f) {
        return f.getType()
                + (f.getChildren().isEmpty() ? "" : f.getChildren().toString())
                + (f.isNullable() ? "" : " NOT NULL");
    }

    private static List<String> names(List<Field> fields) {
        return fields.stream().map(Field::getName).toList();
    }
}
