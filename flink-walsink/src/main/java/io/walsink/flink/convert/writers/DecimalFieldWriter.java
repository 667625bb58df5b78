package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;

/**
 * DECIMAL into Decimal(p, s, 128). A value already at the column's scale with a compact unscaled
 * long is written without allocating; any other value is rescaled exactly. Rounding is refused
 * rather than done silently (an upsert sink must store what it was given), and so is a value with
 * more integer digits than the column holds. Values are checked even when the declared Flink type
 * fits, because a GenericRowData may carry a DecimalData of any precision.
 */
final class DecimalFieldWriter extends FieldWriter {
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    private final int precision;
    private final int scale;
    private final int flinkPrecision;
    private final int flinkScale;

    DecimalFieldWriter(String column, boolean nullable, int precision, int scale, int flinkPrecision, int flinkScale) {
        super(column, nullable);
        this.precision = precision;
        this.scale = scale;
        this.flinkPrecision = flinkPrecision;
        this.flinkScale = flinkScale;
    }

    @Override
    void setField(FieldVector v, int index, RowData row, int pos) {
        set((DecimalVector) v, index, row.getDecimal(pos, flinkPrecision, flinkScale));
    }

    @Override
    void setElement(FieldVector v, int index, ArrayData array, int pos) {
        set((DecimalVector) v, index, array.getDecimal(pos, flinkPrecision, flinkScale));
    }

    private void set(DecimalVector v, int index, DecimalData value) {
        if (value.scale() == scale && value.isCompact()) {
            long unscaled = value.toUnscaledLong();
            if (precision >= 19 || (unscaled > -POWERS_OF_TEN[precision] && unscaled < POWERS_OF_TEN[precision])) {
                v.setSafe(index, unscaled);
                return;
            }
        }
        v.setSafe(index, rescale(value.toBigDecimal()));
    }

    private BigDecimal rescale(BigDecimal value) {
        BigDecimal rescaled;
        try {
            rescaled = value.setScale(scale, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new ColumnValueException(
                    column,
                    "value " + value.toPlainString() + " has more than " + scale
                            + " fractional digits and would be rounded in DECIMAL(" + precision + ", " + scale + ")");
        }
        if (rescaled.precision() > precision) {
            throw new ColumnValueException(
                    column,
                    "value " + value.toPlainString() + " does not fit DECIMAL(" + precision + ", " + scale + ")");
        }
        return rescaled;
    }
}
