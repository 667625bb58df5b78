package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.PojoToRowData;
import io.walsink.flink.convert.RowToRowData;
import java.io.Serializable;
import java.util.function.Function;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

/**
 * How input records of type {@code IN} become {@link RowData} of the table's row type. Shipped
 * with the job graph; the converter itself is built on the task, since converters are not
 * serializable.
 */
@Internal
public interface InputConversion<IN> extends Serializable {

    Function<IN, RowData> open(RowType rowType);

    /** SQL's internal rows: no conversion. */
    static InputConversion<RowData> rowData() {
        return rowType -> row -> row;
    }

    /** {@link Row}s, positional or named; the kind of a row tells upsert from delete. */
    static InputConversion<Row> rows() {
        return rowType -> RowToRowData.create(rowType)::convert;
    }

    /** Java records or beans whose properties are named like the table's columns. */
    static <T> InputConversion<T> pojos(Class<T> type) {
        return rowType -> PojoToRowData.create(type, rowType)::convert;
    }
}
