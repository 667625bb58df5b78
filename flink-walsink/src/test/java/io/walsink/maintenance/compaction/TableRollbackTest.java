package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.RollbackRecords;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.RollbackResult;
import io.walsink.maintenance.TableRollback;
import io.walsink.maintenance.rollback.RollbackRun;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.ForwardingObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * A table rolled back to a tag reads as the tagged base version by every reader, goes on from
 * there, restores its checkpoints taken after the rollback and refuses those taken before; a
 * refused rollback writes nothing (docs/operations.md, "Rolling a table back").
 */
class TableRollbackTest {
    private static final String TAG = "good";

    @TempDir
    Path dir;

    @Test
    void aTableRolledBackToATagReadsAsTheTagAndGoesOnFromThere() throws Exception {
        long seed = Long.getLong("walsink.test.seed", 2026);
        System.out.println("TableRollbackTest seed " + seed + " (-Dwalsink.test.seed=N for another)");
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 80, 60, "a");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            long tagged = f.baseVersion();
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                base.tags().create(TAG, tagged);
            }
            Map<Long, Map<String, Object>> atTag = new TreeMap<>(f.model);
            Map<UUID, Long> mergedAtTag = f.merged();
            List<ShardDescriptor> before =
                    writers.stream().map(ShardWriter::snapshot).toList();

            f.randomOps(writers, 80, 60, "b");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            f.randomOps(writers, 40, 60, "c");
            // Rows only in the WAL: a running job's.
            writers.forEach(SyncShardDriver::appendAllPending);
            assertRefusedWritingNothing(
                    f, () -> TableRollback.of(f.uri, null).toTag(TAG, false), "past its manifest's replay position");
            CompactionFixture.publishGeneration(writers);
            assertRefusedWritingNothing(
                    f, () -> TableRollback.of(f.uri, null).toVersion(tagged + 1000, false), "has no base version");
            assertRefusedWritingNothing(f, () -> TableRollback.of(f.uri, null).toTag("nope", false), "no tag 'nope'");
            assertRefusedWritingNothing(
                    f, () -> TableRollback.of(f.uri, null).toVersion(1, false), "that version has no MemWAL index");
            try (CompactionLease held = CompactionLease.acquire(
                    f.store, f.uri, "a compactor", CompactionLease.DEFAULT_DURATION, System::currentTimeMillis)) {
                assertRefusedWritingNothing(
                        f, () -> TableRollback.of(f.uri, null).toTag(TAG, false), "a compactor");
            }

            RollbackResult result = TableRollback.of(f.uri, null).toTag(TAG, false);
            System.out.println(String.join("\n", result.describe("t")));
            assertThat(result.target()).isEqualTo(tagged);
            assertThat(result.newBase()).isGreaterThan(tagged);
            assertThat(result.fencedEpochs()).containsOnlyKeys(CompactionFixture.SHARDS);
            assertThat(result.droppedSsTables().values())
                    .as("the later SSTables were listed")
                    .anyMatch(n -> n > 0);
            // The writers of the job that ran are fenced: their next publication fails.
            for (ShardWriter w : writers) {
                f.put(w, 1, "late", 1);
                assertThatThrownBy(() -> CompactionFixture.publishGeneration(List.of(w)))
                        .as("a writer of before the rollback is fenced");
                w.close();
            }
            f.model.clear();
            f.model.putAll(atTag);
            assertReadsAsModel(f, seed);
            assertThat(f.merged())
                    .as("the merge progress is the tagged version's")
                    .isEqualTo(mergedAtTag);

            // A checkpoint of before the rollback is refused before any claim.
            long epoch = new ManifestStore(f.store, before.get(0).shardId())
                    .readLatest()
                    .orElseThrow()
                    .writerEpoch();
            assertThatThrownBy(() -> f.restore(before.get(0)))
                    .hasMessageContaining("was rolled back to version " + tagged)
                    .hasMessageContaining("this checkpoint was taken before")
                    .hasMessageContaining("start the job without its state");
            assertThat(new ManifestStore(f.store, before.get(0).shardId())
                            .readLatest()
                            .orElseThrow()
                            .writerEpoch())
                    .as("the refused restore claimed nothing")
                    .isEqualTo(epoch);

            // A fresh job opens and writes on; its checkpoint restores across later merges.
            List<ShardWriter> fresh = f.openAll();
            f.randomOps(fresh, 60, 60, "d");
            CompactionFixture.publishGeneration(fresh);
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            ShardDescriptor after = fresh.get(1).snapshot();
            f.randomOps(fresh, 60, 60, "e");
            CompactionFixture.publishGeneration(fresh);
            f.compactor(CompactorOptions.defaults()).run();
            assertReadsAsModel(f, seed);
            fresh.forEach(ShardWriter::close);
            // Bucket 1 goes back to the checkpoint, bucket 0 keeps what followed.
            Map<Long, Map<String, Object>> expected = new TreeMap<>(f.model);
            expected.keySet().removeIf(id -> CompactionFixture.bucketOf(id) == 1);
            atCheckpoint.forEach((id, row) -> {
                if (CompactionFixture.bucketOf(id) == 1) {
                    expected.put(id, row);
                }
            });
            f.model.clear();
            f.model.putAll(expected);
            f.assertRestoredTo(f.restore(after), expected, seed);
            assertThat(new RollbackRecords(f.store).readIntent()).isEmpty();
        }
    }

    /** A writer that passed its check before the intent and claims during the rollback is claimed again. */
    @Test
    void aShardClaimedDuringTheRollbackIsClaimedAgain() {
        try (CompactionFixture f = new CompactionFixture(dir, 7)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 40, 60, "a");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            long target = f.baseVersion();
            Map<Long, Map<String, Object>> atTarget = new TreeMap<>(f.model);
            f.randomOps(writers, 40, 60, "b");
            CompactionFixture.publishGeneration(writers);
            writers.forEach(ShardWriter::close);
            UUID shard = CompactionFixture.SHARDS.get(0);
            long[] racer = {0};
            RollbackRun.Hook hook = (point, claimed) -> {
                if (point == RollbackRun.Point.LANCE_RESTORE) {
                    racer[0] = ShardOpener.claim(f.context, shard, f.placement(0), 0)
                            .manifest()
                            .writerEpoch();
                }
            };
            RollbackResult result = new RollbackRun(
                            new TableLocation(f.store, f.uri, Map.of()),
                            f.allocator,
                            RollbackRun.claimant("test"),
                            System::currentTimeMillis,
                            hook)
                    .run(target, false);
            long latest =
                    new ManifestStore(f.store, shard).readLatest().orElseThrow().writerEpoch();
            assertThat(result.fencedEpochs().get(shard))
                    .as("the rollback claimed the shard again after the racing claim")
                    .isGreaterThan(racer[0])
                    .isEqualTo(latest);
            f.model.clear();
            f.model.putAll(atTarget);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.modelRows());
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.modelRows());
        }
    }

    /**
     * A restore whose check passed just before a rollback finished is refused right after its
     * claim: the rollback runs when the restore reads the shard's last reset, between its check and
     * its claim.
     */
    @Test
    void aRestoreCheckedBeforeARollbackFinishedIsRefusedAfterItsClaim() {
        try (CompactionFixture f = new CompactionFixture(dir, 11)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 40, 60, "a");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            long target = f.baseVersion();
            ShardDescriptor before = writers.get(0).snapshot();
            writers.forEach(ShardWriter::close);
            UUID shard = before.shardId();
            boolean[] rolledBack = {false};
            ForwardingObjectStore racing = new ForwardingObjectStore(f.store) {
                @Override
                public byte[] get(String key) {
                    if (key.equals(TableLayout.lastResetKey(shard)) && !rolledBack[0]) {
                        rolledBack[0] = true;
                        TableRollback.of(f.uri, null).toVersion(target, false);
                    }
                    return super.get(key);
                }
            };
            TableContext ctx = new TableContext(
                    new TableLocation(racing, f.table.uri(), Map.of()),
                    f.table,
                    WalSchemaProfile.SPEC,
                    f.context.config(),
                    f.allocator);
            assertThatThrownBy(() -> ShardRestore.restore(ctx, before, f.placement(0)))
                    .hasMessageContaining("was rolled back to version " + target)
                    .hasMessageContaining("this checkpoint was taken before");
            assertThat(rolledBack[0])
                    .as("the rollback ran between the check and the claim")
                    .isTrue();
            assertThat(new ManifestStore(f.store, shard)
                            .readLatest()
                            .orElseThrow()
                            .sstables())
                    .as("the refused restore published nothing")
                    .isEmpty();
        }
    }

    private static void assertReadsAsModel(CompactionFixture f, long seed) {
        List<Map<String, Object>> rows = f.modelRows();
        assertThat(f.read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(rows);
        assertThat(f.read(ReadMode.COMMITTED)).as("COMMITTED, seed %s", seed).isEqualTo(rows);
        assertThat(f.lsmScan()).as("lance-core's LsmScanner, seed %s", seed).isEqualTo(rows);
        assertThat(f.lanceDbRows(seed))
                .as("LanceDB's default read, seed %s", seed)
                .isEqualTo(f.asStrings(rows));
    }

    private static void assertRefusedWritingNothing(CompactionFixture f, Runnable rollback, String message) {
        Set<String> files = files(f.tablePath);
        assertThatThrownBy(rollback::run)
                .isInstanceOfAny(IllegalArgumentException.class, CompactionLeaseException.class)
                .hasMessageContaining(message);
        assertThat(files(f.tablePath)).as("a refused rollback writes nothing").isEqualTo(files);
        assertThat(new RollbackRecords(f.store).readIntent()).isEmpty();
    }

    private static Set<String> files(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString())
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
