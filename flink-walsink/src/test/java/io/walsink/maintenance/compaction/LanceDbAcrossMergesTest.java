package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.SsTable;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * LanceDB's default read opens the base table first and reads the shard manifests afterwards, at
 * query time; a table handle keeps the base version it opened. A read across a merge therefore
 * combines the base table from before the merge with the manifests from after it: an SSTable its
 * writer dropped from the manifest in between is in neither, and its rows are missing or show
 * older values (how `DefaultOptionsVisibilityTest` once failed: one read missed one shard's
 * generation). Writers keep listing a merged SSTable for {@code sink.compaction.keep-merged-for}
 * after they first see it merged; a handle opened before the merge stands for the slow read.
 */
class LanceDbAcrossMergesTest {
    private static final LanceDb.Query ALL = LanceDb.Query.of("all", null, CompactionFixture.COLUMNS);

    // lance-core's native threads may still hold files when JUnit deletes the folder (target/tmp).
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    private List<ShardWriter> writers;

    @Test
    void onTheDefaultsAHandleOpenedBeforeAMergeReadsEveryRowAfterTheWritersNextPublication() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LanceDbAcrossMergesTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed, ShardWriterConfig.defaults());
                LanceDb.Session lanceDb = LanceDb.session(f.tablePath)) {
            long opened = mergeUnderAnOpenHandle(f, lanceDb, seed);
            for (ShardWriter w : writers) {
                assertThat(w.manifest().sstables())
                        .as("what the manifest lists after the merge, seed %s", seed)
                        .extracting(SsTable::generation)
                        .containsExactly(1L, 2L, 3L, 4L);
            }
            List<List<String>> expected = model(f);
            assertThat(rows(lanceDb.readHeld(List.of(ALL))))
                    .as("the handle opened at base version %d, after the merge, seed %s", opened, seed)
                    .isEqualTo(expected);
            assertThat(lanceDb.lastBaseVersion())
                    .as("the version the held handle read")
                    .isEqualTo(opened);
            assertThat(rows(lanceDb.read(List.of(ALL))))
                    .as("a new LanceDB read, seed %s", seed)
                    .isEqualTo(expected);
            assertThat(lanceDb.lastBaseVersion())
                    .as("the version a new read opened")
                    .isEqualTo(f.baseVersion());
            assertThat(f.read(io.walsink.read.ReadMode.COMMITTED))
                    .as("walsink's reader skips the merged SSTables still listed, seed %s", seed)
                    .isEqualTo(f.modelRows());
        }
    }

    /** Why the delay: without it the same handle misses what the merge moved. */
    @Test
    void droppingMergedSsTablesAtOnceHidesRowsFromAHandleOpenedBeforeTheMerge() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LanceDbAcrossMergesTest seed " + seed);
        ShardWriterConfig atOnce =
                ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build();
        try (CompactionFixture f = new CompactionFixture(dir, seed, atOnce);
                LanceDb.Session lanceDb = LanceDb.session(f.tablePath)) {
            mergeUnderAnOpenHandle(f, lanceDb, seed);
            for (ShardWriter w : writers) {
                assertThat(w.manifest().sstables())
                        .extracting(SsTable::generation)
                        .containsExactly(4L);
            }
            List<String> heldKeys = rows(lanceDb.readHeld(List.of(ALL))).stream()
                    .map(r -> r.get(0))
                    .toList();
            assertThat(model(f).stream().map(r -> r.get(0)).filter(k -> !heldKeys.contains(k)))
                    .as("keys the handle opened before the merge misses, seed %s", seed)
                    .isNotEmpty();
            assertThat(rows(lanceDb.read(List.of(ALL))))
                    .as("a new LanceDB read, seed %s", seed)
                    .isEqualTo(model(f));
        }
    }

    /**
     * The advice for applications that keep a handle: connected with a {@code
     * readConsistencyInterval} of 0, the handle looks for the newest base version at every read,
     * so even SSTables dropped at once are read from the base table they were merged into.
     */
    @Test
    void aHandleConnectedWithAReadConsistencyIntervalOfZeroFollowsTheMerge() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LanceDbAcrossMergesTest seed " + seed);
        ShardWriterConfig atOnce =
                ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build();
        try (CompactionFixture f = new CompactionFixture(dir, seed, atOnce);
                LanceDb.Session lanceDb = LanceDb.session(f.tablePath)) {
            long opened = mergeUnderAnOpenHandle(f, lanceDb, seed, Duration.ZERO);
            for (ShardWriter w : writers) {
                assertThat(w.manifest().sstables())
                        .extracting(SsTable::generation)
                        .containsExactly(4L);
            }
            assertThat(rows(lanceDb.readHeld(List.of(ALL))))
                    .as("the handle opened at base version %d with readConsistencyInterval 0, seed %s", opened, seed)
                    .isEqualTo(model(f));
            assertThat(lanceDb.lastBaseVersion())
                    .as("the base version the handle read")
                    .isEqualTo(f.baseVersion());
        }
    }

    private long mergeUnderAnOpenHandle(CompactionFixture f, LanceDb.Session lanceDb, long seed) throws Exception {
        return mergeUnderAnOpenHandle(f, lanceDb, seed, null);
    }

    /**
     * Three generations published by both shards, a handle opened, the six generations merged (a
     * newer base version), then a fourth generation published: the writers' manifest update after
     * the merge. Returns the base version the handle opened ({@code readConsistencyInterval} null:
     * on LanceDB's defaults).
     */
    private long mergeUnderAnOpenHandle(
            CompactionFixture f, LanceDb.Session lanceDb, long seed, Duration readConsistencyInterval)
            throws Exception {
        writers = f.openAll();
        for (int generation = 1; generation <= 3; generation++) {
            f.randomOps(writers, 120, 60, "g" + generation);
            CompactionFixture.publishGeneration(writers);
        }
        long opened = lanceDb.hold(readConsistencyInterval);
        assertThat(rows(lanceDb.readHeld(List.of(ALL))))
                .as("the handle before the merge, seed %s", seed)
                .isEqualTo(model(f));
        CompactionResult merge = f.compactor(CompactorOptions.defaults()).run();
        assertThat(merge.mergedGenerations())
                .as("generations merged, seed %s", seed)
                .isEqualTo(6);
        assertThat(f.baseVersion()).as("the base version after the merge").isGreaterThan(opened);
        f.randomOps(writers, 60, 60, "g4");
        CompactionFixture.publishGeneration(writers);
        return opened;
    }

    private static List<List<String>> rows(Map<String, LanceDb.Result> results) {
        LanceDb.Result all = results.get("all");
        assertThat(all.error()).as("LanceDB's error").isNull();
        List<List<String>> rows = new ArrayList<>(all.rows());
        rows.sort((a, b) -> Long.compare(Long.parseLong(a.get(0)), Long.parseLong(b.get(0))));
        return rows;
    }

    /** The model as LanceDB's rows print: id, name, score as text, by id. */
    private static List<List<String>> model(CompactionFixture f) {
        List<List<String>> rows = new ArrayList<>();
        for (Map<String, Object> r : f.modelRows()) {
            List<String> row = new ArrayList<>();
            for (String c : CompactionFixture.COLUMNS) {
                Object v = r.get(c);
                row.add(v == null ? null : v.toString());
            }
            rows.add(row);
        }
        return rows;
    }
}
