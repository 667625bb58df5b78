package io.walsink.shard.memtable;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Copies the marked rows of one or more batches into another batch of the same schema, end to end,
 * run of consecutive marked rows by run: values of fixed-width and variable-width columns move as
 * one memory copy per run (offsets rebased per row), validity bit by bit; booleans and nested
 * columns keep Arrow's row copy. The SSTable writer uses it to keep the newest rows of a frozen
 * memtable, which come in long runs when few keys were updated, and to gather the few survivors of
 * many sealed batches into one batch: each batch handed to lance-core costs a JNI attach and
 * detach of one of its native threads, which in JDK 17 walks every inflated monitor of the JVM.
 */
final class MarkedRowsCopy {
    /** Per source: start and length of each run of marked rows. */
    private final int[][] runStart;

    private final int[][] runLength;
    private final int[] runs;
    private final int kept;

    private MarkedRowsCopy(List<VectorSchemaRoot> sources, List<boolean[]> marks) {
        runStart = new int[sources.size()][];
        runLength = new int[sources.size()][];
        runs = new int[sources.size()];
        int total = 0;
        for (int s = 0; s < sources.size(); s++) {
            boolean[] marked = marks.get(s);
            int rows = sources.get(s).getRowCount();
            int[] starts = new int[(rows + 1) / 2 + 1];
            int[] lengths = new int[starts.length];
            int n = 0;
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
            runStart[s] = starts;
            runLength[s] = lengths;
            runs[s] = n;
        }
        this.kept = total;
    }

    /** Replaces the content of {@code target} with the rows of {@code source} marked in {@code marked}. */
    static void copy(VectorSchemaRoot source, boolean[] marked, VectorSchemaRoot target) {
        copy(List.of(source), List.of(marked), target);
    }

    /**
     * Replaces the content of {@code target} with the marked rows of each source in turn: the
     * rows of {@code sources.get(0)} marked in {@code marks.get(0)}, then those of the next.
     */
    static void copy(List<VectorSchemaRoot> sources, List<boolean[]> marks, VectorSchemaRoot target) {
        if (sources.size() != marks.size()) {
            throw new IllegalArgumentException(sources.size() + " batches but " + marks.size() + " masks");
        }
        MarkedRowsCopy plan = new MarkedRowsCopy(sources, marks);
        List<FieldVector> to = target.getFieldVectors();
        for (int c = 0; c < to.size(); c++) {
            int column = c;
            plan.copyColumn(sources.stream().map(b -> b.getVector(column)).toList(), to.get(c));
        }
        target.setRowCount(plan.kept);
    }

    private void copyColumn(List<FieldVector> from, FieldVector to) {
        to.clear();
        FieldVector first = from.get(0);
        if (first instanceof BitVector) {
            bits(from, (BitVector) to);
        } else if (!(first instanceof BaseFixedWidthVector || first instanceof BaseVariableWidthVector)) {
            rowByRow(from, to);
        } else if (first instanceof BaseFixedWidthVector) {
            fixedWidth(from, (BaseFixedWidthVector) to);
        } else {
            variableWidth(from, (BaseVariableWidthVector) to);
        }
    }

    private void rowByRow(List<FieldVector> from, FieldVector to) {
        to.setInitialCapacity(kept);
        to.allocateNew();
        int dst = 0;
        for (int s = 0; s < from.size(); s++) {
            for (int run = 0; run < runs[s]; run++) {
                for (int i = 0; i < runLength[s][run]; i++) {
                    to.copyFromSafe(runStart[s][run] + i, dst++, from.get(s));
                }
            }
        }
    }

    /** Booleans (the tombstone column): bit by bit into zeroed buffers, setting only the ones. */
    private void bits(List<FieldVector> from, BitVector to) {
        to.allocateNew(Math.max(1, kept));
        ArrowBuf values = to.getDataBuffer();
        ArrowBuf validity = to.getValidityBuffer();
        int dst = 0;
        for (int s = 0; s < from.size(); s++) {
            BitVector source = (BitVector) from.get(s);
            ArrowBuf sourceValues = source.getDataBuffer();
            ArrowBuf sourceValidity = source.getValidityBuffer();
            for (int run = 0; run < runs[s]; run++) {
                int src = runStart[s][run];
                for (int i = 0; i < runLength[s][run]; i++, dst++) {
                    if (BitVectorHelper.get(sourceValidity, src + i) != 0) {
                        BitVectorHelper.setBit(validity, dst);
                        if (BitVectorHelper.get(sourceValues, src + i) != 0) {
                            BitVectorHelper.setBit(values, dst);
                        }
                    }
                }
            }
        }
    }

    private void fixedWidth(List<FieldVector> from, BaseFixedWidthVector to) {
        to.allocateNew(Math.max(1, kept));
        int dst = 0;
        for (int s = 0; s < from.size(); s++) {
            BaseFixedWidthVector source = (BaseFixedWidthVector) from.get(s);
            long width = source.getTypeWidth();
            for (int run = 0; run < runs[s]; run++) {
                int src = runStart[s][run];
                int length = runLength[s][run];
                to.getDataBuffer().setBytes(dst * width, source.getDataBuffer(), src * width, length * width);
                copyValidity(source, to, src, dst, length);
                dst += length;
            }
        }
    }

    private void variableWidth(List<FieldVector> from, BaseVariableWidthVector to) {
        long bytes = 0;
        for (int s = 0; s < from.size(); s++) {
            BaseVariableWidthVector source = (BaseVariableWidthVector) from.get(s);
            for (int run = 0; run < runs[s]; run++) {
                int end = runStart[s][run] + runLength[s][run];
                bytes += source.getStartOffset(end) - source.getStartOffset(runStart[s][run]);
            }
        }
        to.allocateNew(Math.max(1, bytes), Math.max(1, kept));
        to.getOffsetBuffer().setInt(0, 0);
        int dstBytes = 0;
        int dst = 0;
        for (int s = 0; s < from.size(); s++) {
            BaseVariableWidthVector source = (BaseVariableWidthVector) from.get(s);
            for (int run = 0; run < runs[s]; run++) {
                int src = runStart[s][run];
                int length = runLength[s][run];
                int srcStart = source.getStartOffset(src);
                int runBytes = source.getStartOffset(src + length) - srcStart;
                to.getDataBuffer().setBytes(dstBytes, source.getDataBuffer(), srcStart, runBytes);
                for (int i = 1; i <= length; i++) {
                    int end = dstBytes + source.getStartOffset(src + i) - srcStart;
                    to.getOffsetBuffer().setInt((long) (dst + i) * BaseVariableWidthVector.OFFSET_WIDTH, end);
                }
                copyValidity(source, to, src, dst, length);
                dstBytes += runBytes;
                dst += length;
            }
        }
        to.setLastSet(kept - 1); // every row up to here is set: no holes for setValueCount to fill
    }

    private static void copyValidity(FieldVector from, FieldVector to, int src, int dst, int length) {
        for (int i = 0; i < length; i++) {
            BitVectorHelper.setValidityBit(to.getValidityBuffer(), dst + i, from.isNull(src + i) ? 0 : 1);
        }
    }
}
