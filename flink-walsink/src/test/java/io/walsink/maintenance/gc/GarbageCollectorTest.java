package io.walsink.maintenance.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.maintenance.gc.GcFixture.Checkpoint;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage collection on tables the shard engine writes, in simulated time (see {@link GcFixture}):
 * what it removes stays bounded, and nothing a live manifest or a retained checkpoint needs goes.
 */
class GarbageCollectorTest {
    @TempDir
    Path dir;

    private static long seed(String test) {
        long seed = Long.getLong("gc.seed", System.nanoTime());
        System.out.println(test + " seed: " + seed + " (rerun with -Dgc.seed=" + seed + ")");
        return seed;
    }

    private static void randomWrites(GcFixture f, Random random) {
        int n = 1 + random.nextInt(20);
        for (int i = 0; i < n; i++) {
            long id = random.nextInt(50);
            if (random.nextInt(5) == 0) {
                f.delete(id);
            } else {
                f.put(id, "v" + random.nextInt(1_000_000));
            }
        }
    }

    /**
     * Many steps of writes, publications, failed attempts and restores of recent checkpoints, with
     * a collection after each: WAL entries, manifest versions and unreferenced SSTable folders stay
     * bounded, every folder a remaining manifest version lists is there, and both read modes equal
     * the model throughout.
     */
    @Test
    void aLongRunStaysBoundedAndReadsEqualTheModel() {
        Random random = new Random(seed("aLongRunStaysBoundedAndReadsEqualTheModel"));
        GarbageCollector.Options options =
                GarbageCollector.Options.retaining(Duration.ofHours(3)).keepingNewest(3);
        long removedVersions = 0;
        long removedEntries = 0;
        long removedFolders = 0;
        try (GcFixture f = new GcFixture(dir)) {
            Checkpoint recent = null;
            int sincePublish = 0;
            for (int step = 1; step <= 60; step++) {
                f.beginStep();
                randomWrites(f, random);
                int action = random.nextInt(100);
                boolean published = false;
                if (action < 50 || sincePublish >= 3) {
                    f.publishAll();
                    published = true;
                } else if (action < 65) {
                    f.failedAttempt();
                } else if (action < 80) {
                    recent = f.checkpoint();
                } else if (recent != null
                        && recent.at().isAfter(f.clock.instant().minus(Duration.ofHours(2)))) {
                    f.restore(recent);
                    recent = null;
                }
                sincePublish = published ? 0 : sincePublish + 1;
                f.appendAll();
                f.endStep();

                GcSummary summary = f.collect(options);
                removedVersions += summary.manifestVersions();
                removedEntries += summary.walEntries();
                removedFolders += summary.ssTableFolders();

                String at = "step " + step;
                assertThat(f.read(ReadMode.LATEST)).as(at).isEqualTo(f.model);
                if (published) {
                    assertThat(f.read(ReadMode.COMMITTED)).as(at).isEqualTo(f.model);
                }
                // Versions: the newest 3 plus those superseded within 3 steps (at most 3 per step:
                // a claim, a publication, a restore).
                assertThat(f.manifestVersions()).as(at).hasSizeLessThanOrEqualTo(3 + 3 * 4);
                // Entries: those after the lowest kept replay_after; publication every 4th step at least.
                assertThat(f.walPositions()).as(at).hasSizeLessThanOrEqualTo(60);
                Set<String> folders = f.ssTableFolders();
                assertThat(folders).as(at).containsAll(f.referencedFolders());
                Set<String> unreferenced = new HashSet<>(folders);
                unreferenced.removeAll(
                        f.latest().sstables().stream().map(t -> t.path()).toList());
                assertThat(unreferenced).as(at).hasSizeLessThanOrEqualTo(12);
            }
            // Everything written and no longer present was removed by the collector, and that is
            // most of the history: the bounds above are far below what 60 steps wrote.
            long versionsWritten = f.latest().version();
            List<Long> positions = f.walPositions();
            long entriesWritten = positions.get(positions.size() - 1);
            System.out.println("written: " + versionsWritten + " manifest versions, " + entriesWritten
                    + " WAL entries; removed " + removedVersions + ", " + removedEntries + ", " + removedFolders
                    + " SSTable folders");
            assertThat(removedVersions)
                    .isEqualTo(versionsWritten - f.manifestVersions().size());
            assertThat(removedEntries).isEqualTo(entriesWritten - positions.size());
            assertThat(versionsWritten).isGreaterThan(2 * (3 + 3 * 4));
            assertThat(entriesWritten).isGreaterThan(60);
            assertThat(removedFolders).isPositive();
            // and the shard still opens and holds everything
            f.publishAll();
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
        }
    }

    /**
     * A history of 30 steps in a cycle of four: publish everything, a failed attempt, appends
     * only, a checkpoint. Each checkpoint (steps 4, 8, ..., 28) therefore replays WAL entries
     * written two and three steps before it, older than itself.
     */
    private static List<Checkpoint> history(GcFixture f, Random random) {
        List<Checkpoint> checkpoints = new ArrayList<>();
        for (int step = 1; step <= 30; step++) {
            f.beginStep();
            randomWrites(f, random);
            switch (step % 4) {
                case 1 -> f.publishAll();
                case 2 -> f.failedAttempt();
                case 3 -> f.appendAll();
                default -> checkpoints.add(f.checkpoint());
            }
            f.endStep();
        }
        return checkpoints;
    }

    /** Retention reaching back to just before checkpoint {@code index} was taken. */
    private static Duration retentionKeeping(GcFixture f, Checkpoint c) {
        return Duration.between(c.at(), f.clock.instant()).plusMinutes(30);
    }

    /**
     * Collection with a retention that keeps the checkpoint of step 12 (but not the WAL entries
     * of steps 10 and 11 by their own age) removes older history, yet restoring that checkpoint
     * (and then a newer one) yields exactly the model at each.
     */
    @Test
    void retainedCheckpointsStillRestoreExactly() {
        Random random = new Random(seed("retainedCheckpointsStillRestoreExactly"));
        try (GcFixture f = new GcFixture(dir)) {
            List<Checkpoint> checkpoints = history(f, random);
            Checkpoint oldestKept = checkpoints.get(2); // step 12
            GcSummary summary = f.collect(GarbageCollector.Options.retaining(retentionKeeping(f, oldestKept))
                    .keepingNewest(2));
            assertThat(summary.manifestVersions()).isPositive();
            assertThat(summary.walEntries()).isPositive();
            assertThat(summary.ssTableFolders()).isPositive();
            assertThat(f.manifestVersions()).doesNotContain(1L);

            f.restore(oldestKept);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(oldestKept.model());
            f.publishAll();
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(oldestKept.model());

            Checkpoint newer = checkpoints.get(4); // step 20, restored after an older one
            f.restore(newer);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(newer.model());
            f.publishAll();
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(newer.model());
        }
    }

    /** A checkpoint older than the retention fails to restore, naming the retention, and claims nothing. */
    @Test
    void restoringBeyondTheRetentionFailsNamingIt() {
        Random random = new Random(seed("restoringBeyondTheRetentionFailsNamingIt"));
        try (GcFixture f = new GcFixture(dir)) {
            List<Checkpoint> checkpoints = history(f, random);
            Duration retention = retentionKeeping(f, checkpoints.get(2));
            f.collect(GarbageCollector.Options.retaining(retention).keepingNewest(2));
            long epoch = f.latest().writerEpoch();

            for (Checkpoint tooOld : checkpoints.subList(0, 2)) {
                assertThatThrownBy(() -> f.restore(tooOld))
                        .isInstanceOf(GarbageCollectedException.class)
                        .hasMessageContaining("removed by garbage collection (retention " + retention)
                        .hasMessageContaining("shard " + GcFixture.SHARD)
                        .hasMessageContaining("restore a newer one");
            }
            assertThat(f.latest().writerEpoch()).as("no claim").isEqualTo(epoch);
        }
    }

    /** A dry run reports what a real run then removes, and removes nothing itself. */
    @Test
    void aDryRunRemovesNothingButReportsWhatARunRemoves() {
        Random random = new Random(seed("aDryRunRemovesNothingButReportsWhatARunRemoves"));
        try (GcFixture f = new GcFixture(dir)) {
            history(f, random);
            GarbageCollector.Options options =
                    GarbageCollector.Options.retaining(Duration.ofHours(5)).keepingNewest(2);
            Map<String, Long> before = f.objects();

            GcSummary dry = f.collect(options.dryRun(true));

            assertThat(f.objects()).isEqualTo(before);
            assertThat(dry.dryRun()).isTrue();
            assertThat(dry.manifestVersions()).isPositive();
            assertThat(dry.walEntries()).isPositive();
            assertThat(dry.ssTableFolders()).isPositive();

            GcSummary real = f.collect(options);

            assertThat(real)
                    .isEqualTo(new GcSummary(
                            false,
                            dry.shards(),
                            dry.walEntries(),
                            dry.manifestVersions(),
                            dry.ssTableFolders(),
                            dry.temporaryFiles(),
                            dry.jobRecords(),
                            dry.objects(),
                            dry.bytes()));
            Map<String, Long> after = f.objects();
            Set<String> removed = new HashSet<>(before.keySet());
            removed.removeAll(after.keySet());
            assertThat(removed).hasSize((int) real.objects());
            assertThat(removed.stream().mapToLong(before::get).sum()).isEqualTo(real.bytes());
        }
    }

    /**
     * The SSTable of a failed attempt, never published, goes once older than the retention; the
     * one its retry published (the same rows, under a generation above the orphan's: a generation
     * number is never given out twice) stays, and so does a recent orphan.
     */
    @Test
    void unreferencedSsTablesOfFailedAttemptsAreRemovedReferencedOnesStay() {
        try (GcFixture f = new GcFixture(dir)) {
            f.beginStep();
            f.put(1, "a");
            String orphan = f.failedAttempt();
            f.endStep();
            f.beginStep();
            f.publishAll(); // the retry writes the same rows into another folder, of a higher generation
            f.endStep();
            ShardManifest published = f.latest();
            String retried = published.sstables().get(0).path();
            assertThat(retried).isNotEqualTo(orphan);
            assertThat(TableLayout.ssTableGeneration(retried).getAsLong())
                    .isGreaterThan(TableLayout.ssTableGeneration(orphan).getAsLong());
            for (int step = 0; step < 6; step++) {
                f.beginStep();
                f.put(10 + step, "b" + step);
                f.publishAll();
                f.endStep();
            }
            f.beginStep();
            f.put(2, "c");
            String recentOrphan = f.failedAttempt();
            f.endStep();

            assertThat(f.ssTableFolders()).contains(orphan, recentOrphan);
            GcSummary summary = f.collect(
                    GarbageCollector.Options.retaining(Duration.ofHours(3)).keepingNewest(2));

            Set<String> folders = f.ssTableFolders();
            assertThat(folders).doesNotContain(orphan).contains(retried, recentOrphan);
            assertThat(folders)
                    .containsAll(
                            f.latest().sstables().stream().map(t -> t.path()).toList());
            assertThat(f.tablePath.resolve("_mem_wal/" + GcFixture.SHARD + "/" + orphan))
                    .doesNotExist();
            assertThat(summary.ssTableFolders()).isEqualTo(1);
            f.publishAll();
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
        }
    }
}
