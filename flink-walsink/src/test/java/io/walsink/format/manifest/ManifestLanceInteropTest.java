package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.TableLayout;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.memwal.InitializeMemWalParams;
import org.lance.memwal.ShardWriter;
import org.lance.memwal.ShardWriterConfig;

/** The manifest codec and claim against lance-core 7.0.0 as the oracle, on a local directory. */
class ManifestLanceInteropTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field(
                    "id",
                    new FieldType(
                            false,
                            new ArrowType.Int(64, true),
                            null,
                            Map.of("lance-schema:unenforced-primary-key", "true")),
                    null),
            new Field("value", FieldType.nullable(new ArrowType.Utf8()), null)));

    // lance-core's native threads may still be closing files of the copies when JUnit deletes the
    // folder; it lives under target/tmp, so it is left for mvn clean rather than failing the test.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path tempDir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private Path tablePath;
    private Dataset table;
    private int specId;

    @BeforeEach
    void createTableWithMemWal() throws Exception {
        tablePath = tempDir.resolve("table");
        try (ArrowReader rows = rows(0, 4)) {
            table = Dataset.write()
                    .allocator(allocator)
                    .reader(rows)
                    .uri(tablePath.toString())
                    .execute();
        }
        table.initializeMemWal(new InitializeMemWalParams().withBucketSharding("id", 2));
        specId = table.memWalIndexDetails().orElseThrow().shardingSpecs().get(0).specId();
    }

    @AfterEach
    void close() {
        table.close(); // before the extension closes the allocator and checks for leaks
    }

    @Test
    void manifestsWrittenByLanceDecode() throws Exception {
        UUID shard = UUID.randomUUID();
        ManifestStore store = new ManifestStore(new LocalObjectStore(tablePath), shard);

        writeWithLance(shard, 3);

        assertThat(store.listVersions()).containsExactly(1L, 2L);
        // Version 1 is lance-core's claim, byte for byte what our claimer writes for a bare shard.
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(tablePath.resolve(store.versionKey(1)))))
                .isEqualTo("0801100130015a120a10" + shard.toString().replace("-", ""));
        ShardManifest claim = store.read(1);
        assertThat(claim)
                .isEqualTo(ShardManifest.builder()
                        .version(1)
                        .writerEpoch(1)
                        .currentGeneration(1)
                        .shardId(shard)
                        .build());
        // Closing flushed the memtable: one SSTable, covering the 3 WAL entries (one per put).
        ShardManifest latest = store.readLatest().orElseThrow();
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.writerEpoch()).isEqualTo(1);
        assertThat(latest.shardId()).isEqualTo(shard);
        assertThat(latest.replayAfterWalEntryPosition()).isEqualTo(3);
        assertThat(latest.walEntryPositionLastSeen()).isEqualTo(3);
        assertThat(latest.currentGeneration()).isEqualTo(2);
        assertThat(latest.sstables()).hasSize(1);
        SsTable sstable = latest.sstables().get(0);
        assertThat(sstable.generation()).isEqualTo(1);
        assertThat(sstable.path()).matches("[0-9a-f]{8}_gen_1");
        assertThat(tablePath.resolve(TableLayout.shardFolder(shard) + sstable.path()))
                .isDirectory();
        assertThat(Files.readString(tablePath.resolve(store.hintKey()), StandardCharsets.UTF_8))
                .isEqualTo("{\"version\":2}");
        assertThat(ManifestInvariants.check(store)).isEmpty();
    }

    @Test
    void shardWeClaimIsAcceptedAndReclaimedByLance() throws Exception {
        UUID shard = UUID.randomUUID();
        ManifestStore store = new ManifestStore(new LocalObjectStore(tablePath), shard);
        ShardClaimer claimer = new ShardClaimer(store);

        ShardManifest ours = claimer.claim(ShardPlacement.bucket(specId, 1));
        assertThat(ours.writerEpoch()).isEqualTo(1);

        try (ShardWriter writer =
                table.memWalWriter(shard.toString(), new ShardWriterConfig().withDurableWrite(true))) {
            // Opening is lance-core's claim on top of ours: version 2, epoch 2, our placement kept.
            ShardManifest lanceClaim = store.readLatest().orElseThrow();
            assertThat(lanceClaim.version()).isEqualTo(2);
            assertThat(lanceClaim.writerEpoch()).isEqualTo(2);
            assertThat(lanceClaim.shardSpecId()).isEqualTo(specId);
            assertThat(lanceClaim.shardFieldEntries()).containsExactly(ShardFieldEntry.bucket(1));
            try (ArrowReader rows = rows(100, 10)) {
                writer.put(rows);
            }
        }
        ShardManifest flushed = store.readLatest().orElseThrow();
        assertThat(flushed.version()).isEqualTo(3);
        assertThat(flushed.writerEpoch()).isEqualTo(2);
        assertThat(flushed.sstables()).hasSize(1);

        // And back: we reclaim over lance-core's state, then lance-core over ours.
        ShardManifest reclaimed = claimer.claim(ShardPlacement.bucket(specId, 1));
        assertThat(reclaimed.version()).isEqualTo(4);
        assertThat(reclaimed.writerEpoch()).isEqualTo(3);
        assertThat(reclaimed.sstables()).isEqualTo(flushed.sstables());
        table.memWalWriter(shard.toString(), new ShardWriterConfig()).close();
        ShardManifest lanceAgain = store.readLatest().orElseThrow();
        assertThat(lanceAgain.writerEpoch()).isEqualTo(4);
        assertThat(lanceAgain.sstables()).isEqualTo(flushed.sstables());
        assertThat(ManifestInvariants.check(store)).isEmpty();
    }

    private void writeWithLance(UUID shard, int puts) throws Exception {
        try (ShardWriter writer =
                table.memWalWriter(shard.toString(), new ShardWriterConfig().withDurableWrite(true))) {
            for (int i = 0; i < puts; i++) {
                try (ArrowReader rows = rows(100 + 10L * i, 10)) {
                    writer.put(rows);
                }
            }
        }
    }

    private ArrowReader rows(long firstId, int count) throws Exception {
        ByteArrayOutputStream ipc = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector value = (VarCharVector) root.getVector("value");
            id.allocateNew(count);
            value.allocateNew(count);
            for (int i = 0; i < count; i++) {
                id.set(i, firstId + i);
                value.setSafe(i, ("v" + (firstId + i)).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(count);
            try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, ipc)) {
                writer.start();
                writer.writeBatch();
                writer.end();
            }
        }
        return new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator);
    }
}
