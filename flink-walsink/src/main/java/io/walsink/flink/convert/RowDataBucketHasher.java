package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.BucketSourceType;
import io.walsink.format.sharding.UnsupportedBucketTypeException;
import java.io.Serializable;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Lance's bucket of a {@link RowData}, computed from the Flink value of the sharding column
 * exactly as Lance computes it from the Arrow value the row will be stored as (same hash input:
 * integers widened as Lance widens them, timestamps in the table column's unit, strings as UTF-8).
 * This is the {@code keyBy} of the sink, so it runs once per row before the shuffle and must not
 * build Arrow vectors.
 */
@Internal
public final class RowDataBucketHasher implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int column;
    private final int numBuckets;
    private final Kind kind;
    private final String unitName; // TemporalUnit of a time/timestamp column
    private final int flinkPrecision; // RowData stores timestamps compactly up to precision 3

    private enum Kind {
        BOOL,
        INT8,
        INT16,
        INT32,
        INT64,
        DATE,
        TIME32,
        TIME64,
        TIMESTAMP,
        FLOAT32,
        FLOAT64,
        STRING,
        BINARY
    }

    /**
     * @param rowType the rows' Flink type
     * @param tableField the Arrow field of the sharding column in the table
     * @throws UnsupportedColumnTypeException if Lance cannot bucket the column's type
     */
    public RowDataBucketHasher(RowType rowType, Field tableField, int numBuckets) {
        BucketHash.checkNumBuckets(numBuckets);
        this.column = rowType.getFieldIndex(tableField.getName());
        if (column < 0) {
            throw new SchemaMismatchException(
                    tableField.getName(), "sharding column is missing from the input rows " + rowType);
        }
        ArrowType arrow = tableField.getType();
        try {
            BucketSourceType.of(arrow);
        } catch (UnsupportedBucketTypeException e) {
            throw new UnsupportedColumnTypeException(
                    tableField.getName(), arrow.toString(), "Lance cannot bucket it: " + e.getMessage());
        }
        LogicalType flink = rowType.getTypeAt(column);
        this.numBuckets = numBuckets;
        this.kind = kindOf(tableField.getName(), flink, arrow);
        this.flinkPrecision = flink instanceof TimestampType t
                ? t.getPrecision()
                : flink instanceof LocalZonedTimestampType l ? l.getPrecision() : 0;
        this.unitName = switch (arrow.getTypeID()) {
            case Time -> TemporalUnit.of(((ArrowType.Time) arrow).getUnit()).name();
            case Timestamp -> TemporalUnit.of(((ArrowType.Timestamp) arrow).getUnit())
                    .name();
            default -> null;
        };
    }

    private static Kind kindOf(String name, LogicalType flink, ArrowType arrow) {
        Kind kind =
                switch (flink.getTypeRoot()) {
                    case BOOLEAN -> Kind.BOOL;
                    case TINYINT -> Kind.INT8;
                    case SMALLINT -> Kind.INT16;
                    case INTEGER -> Kind.INT32;
                    case BIGINT -> Kind.INT64;
                    case DATE -> Kind.DATE;
                    case TIME_WITHOUT_TIME_ZONE -> ((ArrowType.Time) arrow).getBitWidth() == 32
                            ? Kind.TIME32
                            : Kind.TIME64;
                    case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Kind.TIMESTAMP;
                    case FLOAT -> Kind.FLOAT32;
                    case DOUBLE -> Kind.FLOAT64;
                    case CHAR, VARCHAR -> Kind.STRING;
                    case BINARY, VARBINARY -> Kind.BINARY;
                    default -> throw new UnsupportedColumnTypeException(
                            name, flink.asSummaryString(), "not a bucket sharding type");
                };
        if (arrow.getTypeID() == ArrowType.ArrowTypeID.Int && !((ArrowType.Int) arrow).getIsSigned()) {
            throw new UnsupportedColumnTypeException(
                    name, arrow.toString(), "unsigned sharding columns are not written by Flink");
        }
        return kind;
    }

    /** The bucket of {@code row}; a null sharding value is bucket 0, as in Lance. */
    public int bucketOf(RowData row) {
        if (row.isNullAt(column)) {
            return BucketHash.NULL_BUCKET;
        }
        int hash =
                switch (kind) {
                    case BOOL -> BucketHash.hashBoolean(row.getBoolean(column));
                    case INT8 -> BucketHash.hashInt(row.getByte(column));
                    case INT16 -> BucketHash.hashInt(row.getShort(column));
                    case INT32, DATE -> BucketHash.hashInt(row.getInt(column));
                    case INT64 -> BucketHash.hashLong(row.getLong(column));
                    case TIME32 -> BucketHash.hashInt(
                            (int) TemporalUnit.valueOf(unitName).fromMillisOfDay(row.getInt(column)));
                    case TIME64 -> BucketHash.hashLong(
                            TemporalUnit.valueOf(unitName).fromMillisOfDay(row.getInt(column)));
                    case TIMESTAMP -> BucketHash.hashLong(
                            TemporalUnit.valueOf(unitName).fromTimestamp(row.getTimestamp(column, flinkPrecision)));
                    case FLOAT32 -> BucketHash.hashFloat(row.getFloat(column));
                    case FLOAT64 -> BucketHash.hashDouble(row.getDouble(column));
                    case STRING -> BucketHash.hashBytes(row.getString(column).toBytes());
                    case BINARY -> BucketHash.hashBytes(row.getBinary(column));
                };
        return BucketHash.bucketOf(hash, numBuckets);
    }

    public int numBuckets() {
        return numBuckets;
    }
}
