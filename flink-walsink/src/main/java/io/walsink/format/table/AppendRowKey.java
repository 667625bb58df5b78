package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The row key walsink generates for a round-robin append table: column {@value #COLUMN}, a BIGINT
 * NOT NULL declared as the table's unenforced primary key, which the users' rows do not have. The
 * writer fills it as a row enters its shard's memtable, so it travels in the WAL entries and a
 * replay brings the same value back. With it an append table is merged like a key table (each row
 * an insert, its generation marked merged in the same commit), a reset finds one shard's rows in
 * the base table by the key's bucket part, and LanceDB's LSM scanner accepts the table.
 *
 * <p>A value is {@code bucket · 2^53 + generation · 2^24 + row}: the shard's bucket, the memtable
 * generation the row entered, and its row number there (above the numbers replayed rows of that
 * generation carry, {@code RowKeys}). A generation given out again after a crash held only rows a
 * restore discards (never in an SSTable, whose folder would have moved the counter past it), so no
 * two surviving rows share a value (docs/architecture.md, "Append tables").
 */
@Internal
public final class AppendRowKey {
    public static final String COLUMN = "_walsink_row_key";

    private static final int ROW_BITS = 24;
    private static final int GENERATION_BITS = 29;
    private static final int BUCKET_SHIFT = ROW_BITS + GENERATION_BITS;
    /** Rows one generation numbers; a memtable reaching it freezes. */
    public static final long MAX_ROWS_PER_GENERATION = 1L << ROW_BITS;

    public static final long MAX_GENERATION = (1L << GENERATION_BITS) - 1;

    private AppendRowKey() {}

    /** Whether {@code table} is an append table keyed by {@value #COLUMN}. */
    public static boolean of(TableInfo table) {
        return table.primaryKey().equals(List.of(COLUMN));
    }

    /** {@code schema} with the row key column after the users' columns (not yet marked as the key). */
    public static Schema declare(Schema schema) {
        if (schema.getFields().stream().anyMatch(f -> f.getName().equals(COLUMN))) {
            throw new IllegalArgumentException("column name " + COLUMN + " is reserved for walsink's row key");
        }
        List<Field> fields = new ArrayList<>(schema.getFields());
        fields.add(new Field(COLUMN, FieldType.notNullable(new ArrowType.Int(64, true)), null));
        return new Schema(fields, schema.getCustomMetadata());
    }

    /** The columns the users' rows have: {@code table}'s schema without the generated row key. */
    public static Schema userSchema(TableInfo table) {
        return of(table) ? withoutRowKey(table.schema()) : table.schema();
    }

    /** {@code schema} without the column {@value #COLUMN}. */
    public static Schema withoutRowKey(Schema schema) {
        List<Field> fields = new ArrayList<>(schema.getFields());
        fields.removeIf(f -> f.getName().equals(COLUMN));
        return new Schema(fields, schema.getCustomMetadata());
    }

    /** The key of row {@code row} of generation {@code generation} in bucket {@code bucket}'s shard. */
    public static long key(int bucket, long generation, long row) {
        if (generation < 1 || generation > MAX_GENERATION) {
            throw new IllegalStateException("generation " + generation + " of bucket " + bucket
                    + " is beyond the row key's " + GENERATION_BITS + " bits");
        }
        if (row < 0 || row >= MAX_ROWS_PER_GENERATION) {
            throw new IllegalStateException("row " + row + " of generation " + generation + " is beyond the row key");
        }
        return ((long) bucket << BUCKET_SHIFT) | (generation << ROW_BITS) | row;
    }

    public static int bucket(long key) {
        return (int) (key >>> BUCKET_SHIFT);
    }

    public static long generation(long key) {
        return (key >>> ROW_BITS) & MAX_GENERATION;
    }

    public static long row(long key) {
        return key & (MAX_ROWS_PER_GENERATION - 1);
    }

    /** The smallest key of bucket {@code bucket}. */
    public static long firstKey(int bucket) {
        return (long) bucket << BUCKET_SHIFT;
    }

    /** The largest key of bucket {@code bucket}. */
    public static long lastKey(int bucket) {
        return firstKey(bucket) | ((1L << BUCKET_SHIFT) - 1);
    }
}
