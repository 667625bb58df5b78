package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.testing.Folders;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.memwal.LsmScanner;

/**
 * lance-core 7.0.0 as an independent judge of what the engine writes: its LsmScanner over our
 * published SSTables, and its own shard writer replaying our WAL (on a copy of the table, since
 * its claim would fence us).
 */
class ShardWriterLanceOracleTest {
    private static final List<String> COLUMNS = List.of("id", "name");

    // lance-core's native threads may still be closing files of the copies when JUnit deletes the
    // folder; it lives under target/tmp, so it is left for mvn clean rather than failing the test.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void lanceCoreScansOurPublishedSsTablesAsTheModel() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter writer = f.open()) {
            for (int generation = 1; generation <= 4; generation++) {
                for (long id = 0; id < 20; id += generation) {
                    f.put(writer, id, "g" + generation + "-first");
                    f.put(writer, id, "g" + generation + "-id" + id); // updated within the memtable too
                }
                flushAndPublishAll(writer);
            }
            assertThat(writer.manifest().sstables()).hasSize(4);

            List<Map<String, Object>> lance = LanceOracle.scan(
                    f.allocator,
                    f.tablePath.toString(),
                    Map.of(),
                    LanceOracle.snapshots(f.store.delegate(), List.of(ShardFixture.SHARD)),
                    COLUMNS);
            assertThat(byId(lance)).containsExactlyElementsOf(modelRows(f));
        }
    }

    @Test
    void lanceCoreReplaysAShardOurEngineWroteInTheLanceJava70Profile() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.LANCE_JAVA_7_0, ShardWriterConfig.defaults())) {
            ShardWriter first = f.open();
            for (long id = 0; id < 10; id++) {
                f.put(first, id, "first-" + id);
            }
            appendAllPending(first);
            f.put(first, 3, "first-3-updated");
            f.put(first, 3, "first-3-updated-again");
            appendAllPending(first);
            first.close(); // crash

            ShardWriter second = f.open(); // epoch 2: a sentinel, then our replay
            f.put(second, 4, "second-4");
            f.put(second, 11, "second-11");
            appendAllPending(second);
            second.freezeActive();
            f.put(second, 4, "second-4-next-generation");
            appendAllPending(second);
            second.close();

            assertThat(replayedByLanceCore(f)).containsExactlyElementsOf(modelRows(f));
        }
    }

    @Test
    void lanceCoreReplaysOnlyTheWalAfterOurPublishedSsTable() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.LANCE_JAVA_7_0, ShardWriterConfig.defaults());
                ShardWriter writer = f.open()) {
            for (long id = 0; id < 10; id++) {
                f.put(writer, id, "published-" + id);
            }
            flushAndPublishAll(writer);
            f.put(writer, 2, "in the WAL after replay_after");
            f.put(writer, 12, "in the WAL after replay_after");
            appendAllPending(writer);

            assertThat(replayedByLanceCore(f)).containsExactlyElementsOf(modelRows(f));
        }
    }

    /** Opens a lance-core writer on a copy of the table (it claims and replays) and scans it. */
    private List<Map<String, Object>> replayedByLanceCore(ShardFixture f) {
        Path copy = dir.resolve("copy");
        Folders.copyTree(f.tablePath, copy);
        List<Map<String, Object>> rows = new ArrayList<>();
        org.lance.memwal.ShardWriterConfig durable =
                new org.lance.memwal.ShardWriterConfig().withDurableWrite(true).withMaxWalFlushIntervalMs(10);
        try (Dataset ds = LanceTables.openDataset(f.allocator, copy.toString(), Map.of());
                org.lance.memwal.ShardWriter lance = ds.memWalWriter(ShardFixture.SHARD.toString(), durable);
                LsmScanner scanner = lance.lsmScanner().project(COLUMNS);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(LanceRows.all(reader.getVectorSchemaRoot()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return byId(rows);
    }

    private static List<Map<String, Object>> byId(List<Map<String, Object>> rows) {
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        return sorted;
    }

    private static List<Map<String, Object>> modelRows(ShardFixture f) {
        List<Map<String, Object>> rows = new ArrayList<>();
        f.model.forEach((id, name) -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", id);
            row.put("name", name);
            rows.add(row);
        });
        return rows;
    }
}
