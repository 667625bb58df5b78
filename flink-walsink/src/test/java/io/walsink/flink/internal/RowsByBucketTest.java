package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.flink.streaming.runtime.tasks.TestProcessingTimeService;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;

/** When rows are written, and in what order: per bucket always the order they came in. */
class RowsByBucketTest {
    private record Written(int bucket, long id, boolean delete) {}

    private final List<Written> written = new ArrayList<>();
    private final TestProcessingTimeService time = new TestProcessingTimeService();
    private int shards;

    /** A block as announced: rows written before it, and its buckets with the id of each one's first row. */
    private record Announced(int writtenBefore, Map<Integer, Long> firstIds) {}

    private final List<Announced> blocks = new ArrayList<>();

    private RowsByBucket rows(boolean inputReused) {
        return new RowsByBucket(
                new RowsByBucket.RowSink() {
                    @Override
                    public void write(int bucket, RowData row, boolean delete) {
                        written.add(new Written(bucket, row.getLong(0), delete));
                    }

                    @Override
                    public void beforeBlock(int[] buckets, RowData[] firstRows, int count) {
                        Map<Integer, Long> firstIds = new LinkedHashMap<>();
                        for (int i = 0; i < count; i++) {
                            firstIds.put(buckets[i], firstRows[i].getLong(0));
                        }
                        blocks.add(new Announced(written.size(), firstIds));
                    }
                },
                time,
                () -> shards,
                inputReused);
    }

    private static RowData row(long id) {
        return GenericRowData.of(id);
    }

    @Test
    void aSubtaskWithFewShardsWritesEachRowAsItComes() throws Exception {
        shards = RowsByBucket.DIRECT_UP_TO_SHARDS;
        RowsByBucket rows = rows(false);
        rows.take(row(1), 3, false);
        rows.take(row(2), 0, true);
        assertThat(written).containsExactly(new Written(3, 1, false), new Written(0, 2, true));
        assertThat(rows.held()).isZero();
        assertThat(time.getNumActiveTimers()).isZero();
        assertThat(blocks).as("no block, so none announced").isEmpty();
    }

    /** Seeded shuffle of 600 rows over 40 buckets; each bucket's rows must keep their order. */
    @Test
    void manyShardsWriteABlockGroupedByBucketInArrivalOrderWithinEach() throws Exception {
        long seed = 20261203;
        System.out.println("seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        shards = RowsByBucket.DIRECT_UP_TO_SHARDS + 1;
        RowsByBucket rows = rows(false);
        List<Written> taken = new ArrayList<>();
        for (long id = 0; id < 600; id++) {
            Written w = new Written(random.nextInt(40), id, random.nextInt(5) == 0);
            taken.add(w);
            rows.take(row(w.id()), w.bucket(), w.delete());
        }
        assertThat(written).as("held until the block is written").isEmpty();
        assertThat(rows.held()).isEqualTo(600);

        rows.writeAll();
        assertThat(rows.held()).isZero();
        assertThat(written).hasSize(600).containsExactlyInAnyOrderElementsOf(taken);
        Map<Integer, Long> firstIds = new TreeMap<>();
        taken.forEach(w -> firstIds.putIfAbsent(w.bucket(), w.id()));
        assertThat(blocks)
                .as("one block, announced before any of its rows was written")
                .hasSize(1);
        assertThat(blocks.get(0).writtenBefore()).isZero();
        assertThat(blocks.get(0).firstIds())
                .as("its buckets in the order written, each with its first row")
                .containsExactlyEntriesOf(firstIds);
        for (int i = 1; i < written.size(); i++) {
            Written before = written.get(i - 1);
            Written after = written.get(i);
            assertThat(after.bucket()).as("grouped by bucket, ascending").isGreaterThanOrEqualTo(before.bucket());
            if (after.bucket() == before.bucket()) {
                assertThat(after.id())
                        .as("arrival order within bucket %d", after.bucket())
                        .isGreaterThan(before.id());
            }
        }
    }

    @Test
    void aFullBlockIsWrittenAtOnceAndALaterOneByTheCallback() throws Exception {
        time.setCurrentTime(0);
        shards = 100;
        RowsByBucket rows = rows(false);
        for (long id = 0; id < RowsByBucket.BLOCK_ROWS - 1; id++) {
            rows.take(row(id), (int) (id % 100), false);
        }
        assertThat(written).isEmpty();
        rows.take(row(RowsByBucket.BLOCK_ROWS - 1), 7, false);
        assertThat(written).as("the full block").hasSize(RowsByBucket.BLOCK_ROWS);

        rows.take(row(5_000), 1, false);
        assertThat(time.getActiveTimerTimestamps())
                .as("one callback, due %d ms after the first row", RowsByBucket.MAX_WAIT_MILLIS)
                .containsExactly(RowsByBucket.MAX_WAIT_MILLIS);
        time.setCurrentTime(RowsByBucket.MAX_WAIT_MILLIS - 1);
        assertThat(written).as("before the callback is due").hasSize(RowsByBucket.BLOCK_ROWS);
        time.setCurrentTime(RowsByBucket.MAX_WAIT_MILLIS);
        assertThat(written).as("the callback wrote the rest").hasSize(RowsByBucket.BLOCK_ROWS + 1);
        assertThat(written.get(RowsByBucket.BLOCK_ROWS)).isEqualTo(new Written(1, 5_000, false));
    }

    @Test
    void anInputThatReusesItsRowsIsNeverHeld() throws Exception {
        shards = 100;
        RowsByBucket rows = rows(true);
        rows.take(row(1), 50, false);
        assertThat(written).containsExactly(new Written(50, 1, false));
        assertThat(rows.held()).isZero();
    }

    /**
     * A write that yields to the mailbox (the memory budget's wait) may run the block's callback:
     * it must not write the block a second time, nor from the middle.
     */
    @Test
    void theCallbackRunDuringAWriteWritesNothingTwice() throws Exception {
        shards = 100;
        RowsByBucket[] self = new RowsByBucket[1];
        self[0] = new RowsByBucket(
                (bucket, row, delete) -> {
                    written.add(new Written(bucket, row.getLong(0), delete));
                    self[0].writeAll(); // as a mailbox yield running the callback would
                },
                time,
                () -> shards,
                false);
        for (long id = 0; id < 10; id++) {
            self[0].take(row(id), (int) id, false);
        }
        self[0].writeAll();
        assertThat(written).extracting(Written::id).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        time.setCurrentTime(RowsByBucket.MAX_WAIT_MILLIS);
        assertThat(written).as("the callback found nothing left").hasSize(10);
    }
}
