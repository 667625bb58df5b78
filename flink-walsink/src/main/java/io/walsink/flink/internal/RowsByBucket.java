package io.walsink.flink.internal;

import java.util.Arrays;
import java.util.function.IntSupplier;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.RowData;

/**
 * The writer subtask's input on its way to the memtables: written as it comes while the subtask
 * holds few shards; with more than {@value #DIRECT_UP_TO_SHARDS}, taken in blocks of up to
 * {@value #BLOCK_ROWS} rows and written grouped by bucket, each bucket's rows in arrival order.
 *
 * <p>Why: a row written into a different shard's memtable than the row before touches the cold
 * tails of a dozen buffers (one per column, and their validity bits); with 128 shards a subtask
 * those misses made a q1 row cost twice what it costs with two. Grouped, a shard's buffers stay
 * in cache for its run of rows (docs/benchmarks.md, "Many buckets per writer subtask").
 *
 * <p>A block is written when it is full, before a checkpoint barrier, at the end of input, and at
 * the latest {@value #MAX_WAIT_MILLIS} ms after its first row (a processing-time callback, so rows
 * never wait for more input). Rows are held by reference, so an input that reuses its objects
 * (Flink's object reuse on) is written as it comes. Runs on the task thread only.
 */
final class RowsByBucket {
    /** Writes one row into its bucket's shard. */
    @FunctionalInterface
    interface RowSink {
        void write(int bucket, RowData row, boolean delete) throws Exception;

        /**
         * Called before a block is written with its {@code count} distinct buckets, in the order
         * they are written, and the first row of each (e.g. to open their shards side by side).
         */
        default void beforeBlock(int[] buckets, RowData[] firstRows, int count) throws Exception {}
    }

    static final int DIRECT_UP_TO_SHARDS = 16;
    static final int BLOCK_ROWS = 1024;
    static final long MAX_WAIT_MILLIS = 2;

    private final RowSink sink;
    private final ProcessingTimeService time;
    private final IntSupplier shards;
    private final boolean inputReused;
    private final RowData[] rows = new RowData[BLOCK_ROWS];
    private final int[] buckets = new int[BLOCK_ROWS];
    private final boolean[] deletes = new boolean[BLOCK_ROWS];
    private final int[] order = new int[BLOCK_ROWS];
    private final int[] blockBuckets = new int[BLOCK_ROWS];
    private final RowData[] firstRows = new RowData[BLOCK_ROWS];
    private int[] starts = new int[0];
    private int size;
    private boolean writing;
    private boolean callbackDue;

    /**
     * @param shards how many shards the subtask holds, or will hold once its buckets' first
     *     rows came (so that a subtask of many buckets opens its first shards side by side too)
     * @param inputReused whether the input may hand the same row object again (then none is held)
     */
    RowsByBucket(RowSink sink, ProcessingTimeService time, IntSupplier shards, boolean inputReused) {
        this.sink = sink;
        this.time = time;
        this.shards = shards;
        this.inputReused = inputReused;
    }

    /** Writes the row now, or takes it into the block (written when full or at the latest soon). */
    void take(RowData row, int bucket, boolean delete) throws Exception {
        if (size == 0 && (inputReused || shards.getAsInt() <= DIRECT_UP_TO_SHARDS)) {
            sink.write(bucket, row, delete); // nothing held: no earlier row of the bucket to overtake
            return;
        }
        rows[size] = row;
        buckets[size] = bucket;
        deletes[size] = delete;
        if (++size == BLOCK_ROWS) {
            writeAll();
        } else if (!callbackDue) {
            callbackDue = true;
            time.registerTimer(time.getCurrentProcessingTime() + MAX_WAIT_MILLIS, t -> {
                callbackDue = false;
                writeAll();
            });
        }
    }

    /** Rows taken and not yet written. */
    int held() {
        return size;
    }

    /**
     * Writes every row held, grouped by bucket (a stable counting sort). Does nothing when called
     * from a mailbox yield of the write in progress, which writes them all.
     */
    void writeAll() throws Exception {
        if (writing || size == 0) {
            return;
        }
        writing = true;
        int n = size;
        try {
            int highest = 0;
            for (int i = 0; i < n; i++) {
                highest = Math.max(highest, buckets[i]);
            }
            if (starts.length < highest + 2) {
                starts = new int[highest + 2];
            } else {
                Arrays.fill(starts, 0, highest + 2, 0);
            }
            for (int i = 0; i < n; i++) {
                starts[buckets[i] + 1]++;
            }
            for (int b = 0; b <= highest; b++) {
                starts[b + 1] += starts[b];
            }
            for (int i = 0; i < n; i++) {
                order[starts[buckets[i]]++] = i;
            }
            int distinct = 0;
            for (int k = 0; k < n; k++) {
                int i = order[k];
                if (distinct == 0 || blockBuckets[distinct - 1] != buckets[i]) {
                    blockBuckets[distinct] = buckets[i];
                    firstRows[distinct++] = rows[i];
                }
            }
            sink.beforeBlock(blockBuckets, firstRows, distinct);
            Arrays.fill(firstRows, 0, distinct, null);
            for (int k = 0; k < n; k++) {
                int i = order[k];
                sink.write(buckets[i], rows[i], deletes[i]);
            }
        } finally {
            Arrays.fill(rows, 0, n, null);
            size = 0;
            writing = false;
        }
    }
}
