package io.walsink.shard.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardEvents;
import io.walsink.shard.ShardFixture;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriterConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver decides every append, SSTable write and publication from the rows it is handed, the
 * ticks it asked for and the publications requested, with no polling by its owner: I/O runs
 * inline and completions when the test runs them, time is simulated.
 */
class ShardDriversTest {
    private static final long INTERVAL = 100;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<Long> wakeUps = new ArrayList<>();
    private final Counts counts = new Counts();
    private final QueuedShardIo io = new QueuedShardIo(Runnable::run);

    private static final class Counts implements ShardEvents {
        int appends;
        int sstables;
        int published;

        @Override
        public void appended(long bytes, long lagMillis) {
            appends++;
        }

        @Override
        public void sstableWritten() {
            sstables++;
        }

        @Override
        public void sstablesPublished(int count) {
            published += count;
        }
    }

    private ShardFixture fixture(long memtableMaxRows) {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .flushInterval(Duration.ofMillis(INTERVAL))
                .memtableMaxRows(memtableMaxRows)
                .build();
        return new ShardFixture(dir, WalSchemaProfile.SPEC, config);
    }

    private ShardDrivers drivers() {
        return drivers(Integer.MAX_VALUE, (bucket, due) -> wakeUps.add(due));
    }

    private ShardDrivers drivers(int appendsPerSecond, ShardTimer timer) {
        return new ShardDrivers(
                io, timer, counts, clock::get, false, Long.MAX_VALUE, () -> 0L, Long.MAX_VALUE, appendsPerSecond);
    }

    /** The production row path: the values go straight into the memtable's vectors. */
    private static void write(ShardDrivers drivers, ShardDriver d, Map<Long, String> model, long id, String name)
            throws InterruptedException {
        drivers.write(
                d,
                (columns, at) -> {
                    ((BigIntVector) columns[0]).set(at, id);
                    ((VarCharVector) columns[1]).setSafe(at, name.getBytes(StandardCharsets.UTF_8));
                },
                false);
        model.put(id, name);
    }

    private void runCompletions() {
        while (io.runCompleted() > 0) {}
    }

    @Test
    void aFullMemtableIsAppendedAndWrittenAsAnSsTableWithoutATick() throws Exception {
        try (ShardFixture f = fixture(10)) {
            ShardDrivers drivers = drivers();
            ShardDriver d = drivers.add(0, f.open());
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 10; id++) {
                write(drivers, d, model, id, "v" + id);
            }
            runCompletions();

            assertThat(counts.appends)
                    .as("the frozen memtable's rows appended at once")
                    .isEqualTo(1);
            assertThat(counts.sstables).as("and written once durable").isEqualTo(1);
            assertThat(d.writer().frozenMemtables()).isZero();
            assertThat(wakeUps)
                    .as("the ticker was asked once, for the first row")
                    .hasSize(1);
            assertThat(counts.published).as("nothing published until asked").isZero();
            assertThat(f.read(ReadMode.COMMITTED)).isEmpty();

            drivers.requestPublication(0, d.writer().unpublished().get(0).generation());
            runCompletions();
            assertThat(counts.published).isEqualTo(1);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(model);
            drivers.closeAll();
        }
    }

    @Test
    void rowsBelowTheWalBufferWaitForTheTickTheyAskedFor() throws Exception {
        try (ShardFixture f = fixture(1_000)) {
            ShardDrivers drivers = drivers();
            ShardDriver d = drivers.add(0, f.open());
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 200; id++) {
                write(drivers, d, model, id, "v" + id);
            }
            runCompletions();
            assertThat(counts.appends).isZero();
            assertThat(wakeUps).as("one timer for all pending rows").hasSize(1);

            long due = wakeUps.get(0);
            clock.set(due);
            drivers.tick(0, due);
            assertThat(wakeUps)
                    .as("the next tick, one interval after this one ran, asked for while the append is in flight")
                    .containsExactly(due, due + INTERVAL);
            runCompletions();
            assertThat(counts.appends).isEqualTo(1);
            assertThat(d.writer().hasPendingRows()).isFalse();

            write(drivers, d, model, 500, "after the tick");
            assertThat(wakeUps).as("armed already: no second timer").hasSize(2);
            clock.set(due + INTERVAL);
            drivers.tick(0, due + INTERVAL);
            runCompletions();
            assertThat(counts.appends)
                    .as("the row after the tick, at the next tick")
                    .isEqualTo(2);
            assertThat(wakeUps).hasSize(3);
            clock.set(due + 2 * INTERVAL);
            drivers.tick(0, due + 2 * INTERVAL);
            runCompletions();
            assertThat(counts.appends)
                    .as("a tick with nothing pending appends nothing")
                    .isEqualTo(2);
            assertThat(wakeUps).as("and asks for no timer").hasSize(3);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(model);
            drivers.closeAll();
        }
    }

    @Test
    void endOfInputLeavesEveryRowInAPublishedSsTable() throws Exception {
        try (ShardFixture f = fixture(64)) {
            ShardDrivers drivers = drivers();
            ShardDriver d = drivers.add(0, f.open());
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 150; id++) {
                write(drivers, d, model, id % 90, "v" + id);
            }
            drivers.writeEverything();
            drivers.requestPublicationOfAll();
            drivers.awaitPublications();

            assertThat(counts.sstables)
                    .as("two full memtables and the active one")
                    .isEqualTo(3);
            assertThat(counts.published).isEqualTo(3);
            assertThat(d.writer().hasPendingRows()).isFalse();
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(model);
            drivers.closeAll();
        }
    }

    /**
     * Six shards of an owner allowed 20 appends a second, each kept pending by a row after every
     * tick, for three simulated seconds: each shard ticks every 300 ms (6 / 20 s) instead of every
     * 100 ms, so the owner's ticks start at most 20 appends a second (plus each shard's first,
     * which comes at once). The control, with no limit, appends at the interval and goes over.
     */
    @Test
    void ticksOfManyShardsStayWithinTheOwnersAppendRate() throws Exception {
        assertThat(tickAppends(6, 20, 3_000)).isLessThanOrEqualTo(20 * 3 + 6);
        assertThat(tickAppends(6, Integer.MAX_VALUE, 3_000))
                .as("control: without the limit each shard appends every interval")
                .isGreaterThan(20 * 3 + 6);
    }

    /**
     * The default rate holds back no tick of a subtask of two shards (4 buckets at parallelism 2
     * append every 100 ms as before) and spaces six shards' ticks 300 ms apart.
     */
    @Test
    void theDefaultRateKeepsTwoShardsAtTheIntervalAndSpacesSix() throws Exception {
        int rate = ShardDrivers.DEFAULT_TICK_APPENDS_PER_SECOND;
        assertThat(tickAppends(2, rate, 3_000))
                .as("two shards, every 100 ms for 3 s")
                .isGreaterThanOrEqualTo(2 * 3_000 / (int) INTERVAL);
        assertThat(tickAppends(6, rate, 3_000))
                .as("six shards, every 300 ms for 3 s, plus each one's first")
                .isLessThanOrEqualTo(6 * 3_000 / 300 + 6);
    }

    /**
     * Ten shards, each given a row every checkpoint in a seeded random order, with a budget of three
     * aged memtables per checkpoint (max-age 0): each checkpoint writes at most three SSTables, the
     * three whose rows waited longest, and every shard's rows are written within ceil(10 / 3) = 4
     * checkpoints of their first row. The control, with no budget, writes all ten every checkpoint.
     */
    @Test
    void agedMemtablesAreWrittenOldestFirstWithinTheBudget() throws Exception {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println("agedMemtablesAreWrittenOldestFirstWithinTheBudget seed " + seed);
        int shards = 10;
        int budget = 3;
        int bound = ShardDrivers.checkpointsToVisibility(shards, budget);
        assertThat(bound).isEqualTo(4);
        assertThat(agedRounds(shards, budget, 20, new java.util.Random(seed)))
                .as("most checkpoints a shard's rows waited, seed %s", seed)
                .isBetween(bound - 1, bound);
        assertThat(agedRounds(shards, Integer.MAX_VALUE, 5, new java.util.Random(seed)))
                .as("control: without a budget every checkpoint writes every shard, seed %s", seed)
                .isEqualTo(1);
    }

    /**
     * Runs {@code rounds} checkpoints over {@code shards} shards as above; returns the most
     * checkpoints a shard's first unwritten row waited for its SSTable (1: the checkpoint it came before).
     */
    private int agedRounds(int shards, int budget, int rounds, java.util.Random random) throws Exception {
        try (ShardFixture f =
                new ShardFixture(dir.resolve("aged-" + budget), WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardDrivers drivers = drivers();
            List<ShardDriver> d = new ArrayList<>();
            for (int b = 0; b < shards; b++) {
                d.add(drivers.add(b, ShardOpener.open(f.context, java.util.UUID.randomUUID(), 0, f.placement())));
            }
            Map<Long, String> model = new TreeMap<>();
            int[] waitingSince = new int[shards];
            java.util.Arrays.fill(waitingSince, -1);
            int longest = 0;
            long id = 0;
            for (int round = 0; round < rounds; round++) {
                List<Integer> order = new ArrayList<>(
                        java.util.stream.IntStream.range(0, shards).boxed().toList());
                java.util.Collections.shuffle(order, random);
                for (int b : order) {
                    clock.incrementAndGet();
                    write(drivers, d.get(b), model, id++, "r" + round);
                    if (waitingSince[b] < 0) {
                        waitingSince[b] = round;
                    }
                }
                long[] since = d.stream().mapToLong(ShardDriver::activeSince).toArray();
                int sstablesBefore = counts.sstables;
                drivers.drainAppends();
                drivers.flushAged(0, budget);
                runCompletions();
                List<Integer> written = new ArrayList<>();
                for (int b = 0; b < shards; b++) {
                    if (d.get(b).activeSince() == Long.MAX_VALUE) {
                        written.add(b);
                        longest = Math.max(longest, round - waitingSince[b] + 1);
                        waitingSince[b] = -1;
                    }
                }
                assertThat(counts.sstables - sstablesBefore)
                        .as("SSTables written at checkpoint %d", round)
                        .isEqualTo(written.size())
                        .isEqualTo(Math.min(budget, shards));
                long newestWritten =
                        written.stream().mapToLong(b -> since[b]).max().orElseThrow();
                for (int b = 0; b < shards; b++) {
                    if (!written.contains(b)) {
                        assertThat(since[b])
                                .as("shard %d waits at checkpoint %d: its rows are no older than any written", b, round)
                                .isGreaterThanOrEqualTo(newestWritten);
                    }
                }
            }
            drivers.closeAll();
            return longest;
        }
    }

    /** Appends of {@code shards} shards driven by their own ticks for {@code millis} of simulated time. */
    private int tickAppends(int shards, int appendsPerSecond, long millis) throws Exception {
        long spacing = Math.max(INTERVAL, (shards * 1000L + appendsPerSecond - 1) / appendsPerSecond);
        ShardWriterConfig config = ShardWriterConfig.builder()
                .flushInterval(Duration.ofMillis(INTERVAL))
                .build();
        try (ShardFixture f = new ShardFixture(
                dir.resolve("rate-" + shards + "-" + appendsPerSecond), WalSchemaProfile.SPEC, config)) {
            TreeMap<Long, List<Integer>> due = new TreeMap<>();
            ShardDrivers drivers =
                    drivers(appendsPerSecond, (bucket, at) -> due.computeIfAbsent(at, k -> new ArrayList<>())
                            .add(bucket));
            ShardDriver[] d = new ShardDriver[shards];
            for (int b = 0; b < shards; b++) {
                d[b] = drivers.add(b, ShardOpener.open(f.context, java.util.UUID.randomUUID(), 0, f.placement()));
            }
            Map<Long, String> model = new TreeMap<>();
            long start = clock.get();
            long id = 0;
            for (ShardDriver driver : d) {
                write(drivers, driver, model, id++, "first");
            }
            int before = counts.appends;
            long[] lastTick = new long[shards];
            java.util.Arrays.fill(lastTick, Long.MIN_VALUE);
            while (!due.isEmpty() && due.firstKey() < start + millis) {
                Map.Entry<Long, List<Integer>> next = due.pollFirstEntry();
                clock.set(next.getKey());
                for (int b : next.getValue()) {
                    if (lastTick[b] != Long.MIN_VALUE) {
                        assertThat(next.getKey() - lastTick[b])
                                .as("time between two ticks of shard %d", b)
                                .isGreaterThanOrEqualTo(spacing);
                    }
                    lastTick[b] = next.getKey();
                    drivers.tick(b, next.getKey());
                    runCompletions();
                    write(drivers, d[b], model, id++, "after a tick");
                }
            }
            int appends = counts.appends - before;
            assertThat(appends).as("the ticks ran").isPositive();
            drivers.closeAll();
            return appends;
        }
    }
}
