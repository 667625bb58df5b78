package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import io.walsink.flink.convert.TemporalUnit;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

/** Writers for DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ, converting to the column's Arrow unit. */
final class TemporalFieldWriters {
    private static final long MILLIS_PER_DAY = 86_400_000L;

    private TemporalFieldWriters() {}

    /** DATE (days since 1970-01-01 as int) into Date(DAY). */
    static final class DateDayWriter extends FieldWriter {
        DateDayWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((DateDayVector) v).setSafe(index, row.getInt(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((DateDayVector) v).setSafe(index, array.getInt(pos));
        }
    }

    /** DATE into Date(MILLISECOND): midnight UTC of the day, as Arrow requires. */
    static final class DateMilliWriter extends FieldWriter {
        DateMilliWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((DateMilliVector) v).setSafe(index, row.getInt(pos) * MILLIS_PER_DAY);
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((DateMilliVector) v).setSafe(index, array.getInt(pos) * MILLIS_PER_DAY);
        }
    }

    /** TIME (millis of the day as int) into Time of any unit; the vector class is fixed per column. */
    static final class TimeWriter extends FieldWriter {
        private final TemporalUnit unit;
        private final TimeSetter setter;

        TimeWriter(String column, boolean nullable, TemporalUnit unit) {
            super(column, nullable);
            this.unit = unit;
            this.setter = setterFor(unit);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            setter.set(v, index, unit.fromMillisOfDay(row.getInt(pos)));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            setter.set(v, index, unit.fromMillisOfDay(array.getInt(pos)));
        }

        private interface TimeSetter {
            void set(FieldVector v, int index, long ticks);
        }

        private static TimeSetter setterFor(TemporalUnit unit) {
            switch (unit) {
                case SECOND:
                    return (v, i, t) -> ((TimeSecVector) v).setSafe(i, (int) t);
                case MILLISECOND:
                    return (v, i, t) -> ((TimeMilliVector) v).setSafe(i, (int) t);
                case MICROSECOND:
                    return (v, i, t) -> ((TimeMicroVector) v).setSafe(i, t);
                default:
                    return (v, i, t) -> ((TimeNanoVector) v).setSafe(i, t);
            }
        }
    }

    /**
     * TIMESTAMP / TIMESTAMP_LTZ into Timestamp(unit[, zone]). Both hold epoch-based values in
     * Flink's TimestampData (wall clock for TIMESTAMP, instant for LTZ), which Arrow stores alike.
     */
    static final class TimestampWriter extends FieldWriter {
        private final TemporalUnit unit;
        private final int flinkPrecision;

        TimestampWriter(String column, boolean nullable, TemporalUnit unit, int flinkPrecision) {
            super(column, nullable);
            this.unit = unit;
            this.flinkPrecision = flinkPrecision;
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            set((TimeStampVector) v, index, row.getTimestamp(pos, flinkPrecision));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            set((TimeStampVector) v, index, array.getTimestamp(pos, flinkPrecision));
        }

        private void set(TimeStampVector v, int index, TimestampData value) {
            long ticks;
            try {
                ticks = unit.fromTimestamp(value);
            } catch (ArithmeticException e) {
                throw new ColumnValueException(
                        column,
                        "timestamp " + value + " is outside the range of " + unit.arrow() + " since 1970 in 64 bits");
            }
            v.setSafe(index, ticks);
        }
    }
}
