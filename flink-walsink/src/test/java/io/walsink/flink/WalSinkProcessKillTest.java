package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.testing.LanceRows;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Process-level failover: {@link WalSinkProcessKillJob} runs in a child JVM and is killed with
 * SIGKILL (no shutdown hook, no cancellation, no final checkpoint) once it has completed a
 * checkpoint or two; a new child restores from the newest checkpoint the killed one retained.
 * After three kills the last child runs to the end. Meanwhile a reader in this JVM polls the
 * published table (with compaction and GC on, also the base table alone and LanceDB). Each must
 * have read it many times, never seen a key go back to an older value, vanish without a later
 * delete in the input or show a value no completed checkpoint covered, and never failed a read (see
 * {@link ReadPoller}); at the end the table, COMMITTED and LATEST, equals the model of the whole
 * input.
 */
class WalSinkProcessKillTest {
    private static final int KILLS = 3;
    private static final long N = 12_000;
    private static final double ROWS_PER_SECOND = 2_500;
    /**
     * With compaction and GC every checkpoint does more work: slower input, so that each killed
     * child still has input left when it completed the checkpoints it is killed after.
     */
    private static final double ROWS_PER_SECOND_WITH_MAINTENANCE = 1_200;

    private static final long CHILD_TIMEOUT_SECONDS = 120;
    private static final int MIN_BASE_READS = 5;
    private static final int MIN_LANCEDB_READS = 2;

    @TempDir
    Path dir;

    private final List<ChildJvm> children = new ArrayList<>();

    @Test
    void sigkilledJobsRestoredFromTheirNewestRetainedCheckpointEndWithTheModel() throws Exception {
        long seed = FailoverTestSupport.seed(
                "sigkilledJobsRestoredFromTheirNewestRetainedCheckpointEndWithTheModel", 8_201);
        killAndRestore(seed, false);
    }

    /**
     * The same with compaction and garbage collection inside the job, and three readers: walsink's
     * COMMITTED reader, the base table alone (a plain lance-core scan) and LanceDB's client on its
     * defaults. At the end LanceDB's default read, and after a last compaction the base table alone
     * (lance-core and LanceDB), equal the model too.
     */
    @Test
    void sigkilledJobsCompactingAndCollectingEndWithTheModelAndReadersSeeNoViolation() throws Exception {
        long seed = FailoverTestSupport.seed(
                "sigkilledJobsCompactingAndCollectingEndWithTheModelAndReadersSeeNoViolation", 8_203);
        killAndRestore(seed, true);
    }

    private void killAndRestore(long seed, boolean maintenance) throws Exception {
        ChangeGenerator changes = new ChangeGenerator(200, 6, seed == 0 ? 1 : seed); // seed 0 is the unseeded stream
        SplittableRandom random = new SplittableRandom(seed);
        Path table = dir.resolve("table");
        List<Path> checkpointDirs = new ArrayList<>();
        List<Path> coverDirs = new ArrayList<>();
        for (int k = 0; k <= KILLS; k++) {
            checkpointDirs.add(dir.resolve("checkpoints-" + k));
            coverDirs.add(dir.resolve("covers-" + k));
        }
        List<ReadPoller> pollers = new ArrayList<>(List.of(ReadPoller.committed(table, changes, N, 50)));
        if (maintenance) {
            pollers.add(ReadPoller.baseOnly(table, changes, N, 100));
            pollers.add(ReadPoller.lanceDb(table, changes, N, 200)); // a Node process per read
        }
        // asked after each read: what the newest checkpoint completed by then (any child's) covers
        CheckpointCovers covers = new CheckpointCovers(checkpointDirs, coverDirs, N);
        pollers.forEach(p -> p.coveredBy(covers::covered));
        ReadPoller committed = pollers.get(0);
        List<String> kills = new ArrayList<>();
        try {
            pollers.forEach(ReadPoller::start);
            String restore = null;
            long lastCheckpoint = 0;
            for (int k = 0; k < KILLS; k++) {
                Path checkpoints = checkpointDirs.get(k);
                ChildJvm child = start(k, table, changes, checkpoints, coverDirs.get(k), maintenance, restore);
                // kill once this child completed 1 or 2 checkpoints of its own (newer than the one it restored)
                int wanted = 1 + random.nextInt(2);
                long first = child.awaitCheckpointAbove(checkpoints, 0, CHILD_TIMEOUT_SECONDS); // only its own
                assertThat(first)
                        .as("child %d continues the checkpoint ids of the one it restored", k)
                        .isGreaterThan(lastCheckpoint);
                long seen = wanted == 1 ? first : child.awaitCheckpointAbove(checkpoints, first, CHILD_TIMEOUT_SECONDS);
                assertThat(child.process().isAlive())
                        .as("child %d still running when killed (seed %d)", k, seed)
                        .isTrue();
                assertThat(child.kill())
                        .as("child %d exit code: 128 + SIGKILL(9)", k)
                        .isEqualTo(137);
                Path newest = CheckpointCovers.newestCheckpoint(checkpoints).orElseThrow();
                lastCheckpoint = CheckpointCovers.checkpointId(newest);
                assertThat(lastCheckpoint).isGreaterThanOrEqualTo(seen);
                restore = newest.toString();
                kills.add("child " + k + " killed after checkpoint " + seen + ", restoring " + newest.getFileName()
                        + ", committed reader at " + committed.polls() + " reads");
            }
            ChildJvm last =
                    start(KILLS, table, changes, checkpointDirs.get(KILLS), coverDirs.get(KILLS), maintenance, restore);
            assertThat(last.process().waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                    .as("the last child ran to the end within %d s; %s", CHILD_TIMEOUT_SECONDS, last.logTail())
                    .isTrue();
            assertThat(last.process().exitValue())
                    .as("the last child's exit code; %s", last.logTail())
                    .isZero();
            for (ReadPoller poller : pollers) {
                poller.awaitReadsWithRows(Math.max(5, MIN_BASE_READS));
            }
        } finally {
            for (ChildJvm child : children) {
                child.kill();
            }
            for (ReadPoller poller : pollers) {
                poller.close();
            }
        }
        kills.forEach(System.out::println);
        pollers.forEach(System.out::println);

        Map<Long, String> model = changes.model(N);
        assertThat(read(table, ReadMode.COMMITTED))
                .as("COMMITTED, seed %d", seed)
                .isEqualTo(model);
        assertThat(read(table, ReadMode.LATEST)).as("LATEST, seed %d", seed).isEqualTo(model);
        committed.assertReadWell(seed, 5, 2, "process kills");
        if (maintenance) {
            pollers.get(1).assertReadWell(seed, MIN_BASE_READS, 2, "process kills");
            pollers.get(2).assertReadWell(seed, MIN_LANCEDB_READS, 1, "process kills");
            assertThat(ReadPoller.lanceDbRows(table, null))
                    .as("LanceDB's default read, seed %d", seed)
                    .isEqualTo(model);
            Compactor.compact(table.toString(), null, CompactorOptions.defaults()); // what the last job published
            Map<Long, String> base = new TreeMap<>();
            try (RootAllocator allocator = new RootAllocator()) {
                LanceRows.scan(allocator, table.toString(), Map.of())
                        .forEach(r -> base.put((Long) r.get("id"), String.valueOf(r.get("name"))));
            }
            assertThat(base)
                    .as("plain base table scan once all is merged, seed %d", seed)
                    .isEqualTo(model);
            assertThat(ReadPoller.lanceDbRows(table, false))
                    .as("LanceDB's base-only read once all is merged, seed %d", seed)
                    .isEqualTo(model);
        }
    }

    private ChildJvm start(
            int k,
            Path table,
            ChangeGenerator changes,
            Path checkpoints,
            Path covers,
            boolean maintenance,
            String restore)
            throws IOException {
        List<String> args = new ArrayList<>(List.of(
                table.toString(),
                checkpoints.toString(),
                covers.toString(),
                Boolean.toString(maintenance),
                Integer.toString(changes.keys()),
                Integer.toString(changes.deleteEvery()),
                Long.toString(changes.seed()),
                Long.toString(N),
                Double.toString(maintenance ? ROWS_PER_SECOND_WITH_MAINTENANCE : ROWS_PER_SECOND)));
        if (restore != null) {
            args.add(restore);
        }
        ChildJvm child = ChildJvm.start(dir, "child-" + k, WalSinkProcessKillJob.class, args);
        children.add(child);
        return child;
    }
}
