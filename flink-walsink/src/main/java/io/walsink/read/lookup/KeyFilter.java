package io.walsink.read.lookup;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A key as a Lance SQL predicate ({@code `id` = 42 AND `name` = 'a''b'}), so that lance-core can
 * answer a lookup from a scalar index on the key instead of the lookup reading every row.
 *
 * <p>Only types whose literal is unambiguous are rendered: signed integers, booleans and UTF-8
 * strings. For any other key type there is no filter and the lookup matches the key itself while
 * it reads (it always does: the filter saves reading, correctness never depends on it).
 */
final class KeyFilter {
    private KeyFilter() {}

    /** The predicate for row {@code row} of {@code keyColumns}, empty when one of them has no literal. */
    static Optional<String> of(FieldVector[] keyColumns, int row) {
        List<String> terms = new ArrayList<>(keyColumns.length);
        for (FieldVector column : keyColumns) {
            String name = "`" + column.getName().replace("`", "``") + "`";
            if (column.isNull(row)) {
                terms.add(name + " IS NULL");
                continue;
            }
            Optional<String> literal = literal(column, row);
            if (literal.isEmpty()) {
                return Optional.empty();
            }
            terms.add(name + " = " + literal.get());
        }
        return Optional.of(String.join(" AND ", terms));
    }

    private static Optional<String> literal(FieldVector column, int row) {
        ArrowType type = column.getField().getType();
        if (type instanceof ArrowType.Int i && i.getIsSigned()) {
            long value = ((Number) column.getObject(row)).longValue();
            // SQL reads -9223372036854775808 as the negation of a literal one past the int64 range
            return value == Long.MIN_VALUE ? Optional.empty() : Optional.of(String.valueOf(value));
        }
        if (type instanceof ArrowType.Bool) {
            return Optional.of(String.valueOf(column.getObject(row)));
        }
        if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
            return Optional.of("'" + column.getObject(row).toString().replace("'", "''") + "'");
        }
        return Optional.empty();
    }
}
