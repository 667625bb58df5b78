package io.walsink.shard;

import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Copies the marked rows of a batch into another batch of the same schema, run of consecutive
 * marked rows by run: values of fixed-width and variable-width columns move as one memory copy
 * per run (offsets rebased per row), validity bit by bit; booleans and nested columns keep
 * Arrow's row copy. The SSTable writer uses it to keep the newest rows of a frozen memtable,
 * which come in long runs when few keys were updated.
 */
final class MarkedRowsCopy {
    private final int[] runStart;
    private final int[] runLength;
    private final int runs;
    private final int kept;

    private MarkedRowsCopy(boolean[] marked, int rows) {
        int[] starts = new int[(rows + 1) / 2 + 1];
        int[] lengths = new int[starts.length];
        int n = 0;
        int total = 0;
        for (int r = 0; r < rows; ) {
            if (!marked[r]) {
                r++;
                continue;
            }
            int start = r;
            while (r < rows && marked[r]) {
                r++;
            }
            starts[n] = start;
            lengths[n++] = r - start;
            total += r - start;
        }
        this.runStart = starts;
        this.runLength = lengths;
        this.runs = n;
        this.kept = total;
    }

    /** Replaces the content of {@code target} with the rows of {@code source} marked in {@code marked}. */
    static void copy(VectorSchemaRoot source, boolean[] marked, VectorSchemaRoot target) {
        MarkedRowsCopy plan = new MarkedRowsCopy(marked, source.getRowCount());
        List<FieldVector> from = source.getFieldVectors();
        List<FieldVector> to = target.getFieldVectors();
        for (int c = 0; c < to.size(); c++) {
            plan.copyColumn(from.get(c), to.get(c));
        }
        target.setRowCount(plan.kept);
    }

    private void copyColumn(FieldVector from, FieldVector to) {
        to.clear();
        if (from instanceof BitVector
                || !(from instanceof BaseFixedWidthVector || from instanceof BaseVariableWidthVector)) {
            rowByRow(from, to);
        } else if (from instanceof BaseFixedWidthVector fixed) {
            fixedWidth(fixed, (BaseFixedWidthVector) to);
        } else {
            variableWidth((BaseVariableWidthVector) from, (BaseVariableWidthVector) to);
        }
    }

    private void rowByRow(FieldVector from, FieldVector to) {
        to.setInitialCapacity(kept);
        to.allocateNew();
        for (int run = 0, dst = 0; run < runs; run++) {
            for (int i = 0; i < runLength[run]; i++) {
                to.copyFromSafe(runStart[run] + i, dst++, from);
            }
        }
    }

    private void fixedWidth(BaseFixedWidthVector from, BaseFixedWidthVector to) {
        long width = from.getTypeWidth();
        to.allocateNew(Math.max(1, kept));
        for (int run = 0, dst = 0; run < runs; run++) {
            int src = runStart[run];
            int length = runLength[run];
            to.getDataBuffer().setBytes(dst * width, from.getDataBuffer(), src * width, length * width);
            copyValidity(from, to, src, dst, length);
            dst += length;
        }
    }

    private void variableWidth(BaseVariableWidthVector from, BaseVariableWidthVector to) {
        long bytes = 0;
        for (int run = 0; run < runs; run++) {
            bytes += from.getStartOffset(runStart[run] + runLength[run]) - from.getStartOffset(runStart[run]);
        }
        to.allocateNew(Math.max(1, bytes), Math.max(1, kept));
        to.getOffsetBuffer().setInt(0, 0);
        int dstBytes = 0;
        for (int run = 0, dst = 0; run < runs; run++) {
            int src = runStart[run];
            int length = runLength[run];
            int srcStart = from.getStartOffset(src);
            int runBytes = from.getStartOffset(src + length) - srcStart;
            to.getDataBuffer().setBytes(dstBytes, from.getDataBuffer(), srcStart, runBytes);
            for (int i = 1; i <= length; i++) {
                int end = dstBytes + from.getStartOffset(src + i) - srcStart;
                to.getOffsetBuffer().setInt((long) (dst + i) * BaseVariableWidthVector.OFFSET_WIDTH, end);
            }
            copyValidity(from, to, src, dst, length);
            dstBytes += runBytes;
            dst += length;
        }
        to.setLastSet(kept - 1); // every row up to here is set: no holes for setValueCount to fill
    }

    private static void copyValidity(FieldVector from, FieldVector to, int src, int dst, int length) {
        for (int i = 0; i < length; i++) {
            BitVectorHelper.setValidityBit(to.getValidityBuffer(), dst + i, from.isNull(src + i) ? 0 : 1);
        }
    }
}
