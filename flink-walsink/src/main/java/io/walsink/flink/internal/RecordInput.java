package io.walsink.flink.internal;

import io.walsink.flink.convert.ChangeAction;
import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.shard.TableContext;
import io.walsink.shard.memtable.RowWriter;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The operator's input records as rows for the shards: converted to {@link RowData}, judged
 * (upsert, delete, or skipped), checked on their own when a bucket's first row must be good before
 * its shard is claimed ({@link RowStaging}), then copied once into the memtable ({@link RowDataInput}).
 */
final class RecordInput<IN> implements AutoCloseable {
    private final Function<IN, RowData> converter;
    private final RowStaging staging;
    private final RowDataInput input;
    private RowData row;

    private RecordInput(Function<IN, RowData> converter, RowStaging staging, RowDataInput input) {
        this.converter = converter;
        this.staging = staging;
        this.input = input;
    }

    /** Resolves the field writers for the table's schema, which must accept {@code rowType}. */
    static <IN> RecordInput<IN> open(
            InputConversion<IN> conversion, RowType rowType, TableContext table, BufferAllocator allocator) {
        RowDataArrowWriter writer = RowDataArrowWriter.create(rowType, table.inputSchema());
        table.checkRowSchema(writer.schema());
        return new RecordInput<>(
                conversion.open(rowType), new RowStaging(writer, table, allocator), new RowDataInput(writer));
    }

    /** Takes the next record; what the shard should do with it. */
    ChangeAction next(IN record) {
        row = converter.apply(record);
        return ChangeAction.of(row);
    }

    /** The record taken last, as a row. */
    RowData current() {
        return row;
    }

    /** Checks {@code taken} on its own (a bad first row of a bucket fails before the claim). */
    void check(RowData taken) {
        staging.stage(taken);
    }

    /** {@code taken}, for the memtable to copy. */
    RowWriter row(RowData taken) {
        return input.of(taken);
    }

    @Override
    public void close() {
        staging.close();
    }
}
