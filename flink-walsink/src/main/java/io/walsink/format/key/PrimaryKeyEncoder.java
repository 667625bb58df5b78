package io.walsink.format.key;

import io.walsink.annotation.Internal;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Encodes the primary key of a row, read from Arrow vectors, into a reusable {@link KeyBuffer}.
 * Column types are checked once, when the encoder is built from the table's key fields, so a
 * key that cannot be encoded fails when the writer opens, not on its first row.
 */
@Internal
public final class PrimaryKeyEncoder {

    private final Field[] fields;
    private final KeyColumnType[] types;

    /**
     * @param keyFields the primary-key fields in key-position order
     * @throws UnsupportedKeyTypeException if a field's type cannot be a key column
     */
    public PrimaryKeyEncoder(List<Field> keyFields) {
        if (keyFields.isEmpty()) {
            throw new IllegalArgumentException("a primary key needs at least one column");
        }
        this.fields = keyFields.toArray(new Field[0]);
        this.types = new KeyColumnType[fields.length];
        for (int i = 0; i < fields.length; i++) {
            types[i] = KeyColumnType.of(fields[i]);
        }
    }

    public List<Field> keyFields() {
        return List.of(fields);
    }

    /**
     * Replaces the content of {@code out} with the key of {@code row}.
     *
     * @param keyColumns the vectors of the key fields, in the order given at construction
     */
    public KeyBuffer encode(FieldVector[] keyColumns, int row, KeyBuffer out) {
        if (keyColumns.length != types.length) {
            throw new IllegalArgumentException("expected " + types.length + " key columns, got " + keyColumns.length);
        }
        out.clear();
        for (int i = 0; i < types.length; i++) {
            FieldVector column = keyColumns[i];
            if (column.isNull(row)) {
                out.appendNull();
            } else {
                types[i].append(column, row, out);
            }
        }
        return out;
    }

    /**
     * Whether the key is a single column whose encoding is a presence byte and eight value bytes
     * (signed and unsigned integers, dates, times, timestamps). Such a key is told apart by the
     * 64-bit {@link #singleLongBits} alone, with no key bytes.
     */
    public boolean isSingleLong() {
        return types.length == 1 && types[0].hasLongBits();
    }

    /**
     * The eight value bytes of the encoding of row {@code row}'s key, as one long: what
     * {@link KeyBuffer#longBits} returns for {@link #encode}'s output. Only for
     * {@link #isSingleLong()} keys, and only for a non-null value.
     */
    public long singleLongBits(FieldVector keyColumn, int row) {
        return types[0].longBits(keyColumn, row);
    }

    /**
     * The value whose {@link #singleLongBits} are {@code bits}, as the key column stores it
     * (sign-extended for signed types; its low bytes are the stored ones).
     */
    public long singleLongValue(long bits) {
        return types[0].valueOfLongBits(bits);
    }

    /**
     * The key columns of a batch in key order, looked up once per batch by field name.
     *
     * @throws IllegalArgumentException if a key column is missing or has another type
     */
    public FieldVector[] keyColumns(VectorSchemaRoot batch) {
        FieldVector[] columns = new FieldVector[fields.length];
        for (int i = 0; i < fields.length; i++) {
            FieldVector v = batch.getVector(fields[i].getName());
            if (v == null || !v.getField().getType().equals(fields[i].getType())) {
                throw new IllegalArgumentException(
                        "batch lacks key column " + fields[i] + (v == null ? "" : "; it has " + v.getField()));
            }
            columns[i] = v;
        }
        return columns;
    }
}
