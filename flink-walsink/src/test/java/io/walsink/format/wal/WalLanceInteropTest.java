package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.Folders;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;
import org.lance.memwal.LsmScanner;
import org.lance.memwal.ShardWriter;
import org.lance.memwal.ShardWriterConfig;

/** lance-core 7.0.0 as an oracle: it replays what we write, and we decode what it writes. */
class WalLanceInteropTest {
    private static final Schema TABLE = new Schema(
            List.of(
                    Field.notNullable("id", new ArrowType.Int(64, true)),
                    Field.nullable("name", ArrowType.Utf8.INSTANCE),
                    Field.notNullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
            Map.of("owner", "interop"));

    // lance-core's native threads may still be closing files of the copies when JUnit deletes the
    // folder; it lives under target/tmp, so it is left for mvn clean rather than failing the test.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final UUID shard = UUID.randomUUID();

    /** One row as (id, name, score); name may be null. */
    private record Row(long id, String name, double score) {
        Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("name", name);
            m.put("score", score);
            return m;
        }
    }

    @Test
    void lanceCoreReplaysOurLanceJava70EntriesWithLastWriteWins() {
        Path table = dir.resolve("table");
        TableInfo info = createTableWithClaimedShard(table);
        ShardManifest claim = new ManifestStore(new LocalObjectStore(table), shard)
                .readLatest()
                .orElseThrow();
        assertThat(claim.writerEpoch()).isEqualTo(1);

        List<List<List<Row>>> entries = List.of(
                List.of(rows(1, 5, "a"), List.of(new Row(3, "a3-updated", 30.5), new Row(4, null, 40.5))),
                List.of(List.of(new Row(1, "b1", 100), new Row(6, "b6", 6)), List.of(new Row(6, "b6-again", 66))),
                List.of(List.of(new Row(2, null, -2))));
        WalEntryCodec codec = new WalEntryCodec(WalStorageSchema.of(info, WalSchemaProfile.LANCE_JAVA_7_0), allocator);
        WalLog log = new WalLog(new LocalObjectStore(table), shard, codec);
        long position = log.findTip(claim.walEntryPositionLastSeen());
        log.append(position++, codec.encodeSentinel(claim.writerEpoch()));
        for (List<List<Row>> entry : entries) {
            log.append(position++, encode(codec, claim.writerEpoch(), entry));
        }

        List<Map<String, Object>> replayed = scanReplayedCopy(table);

        assertThat(replayed).containsExactlyElementsOf(lastWriteWins(entries));
    }

    @Test
    void lanceCoreRefusesToReplayOurSpecEntries() {
        Path table = dir.resolve("table");
        TableInfo info = createTableWithClaimedShard(table);
        ShardManifest claim = new ManifestStore(new LocalObjectStore(table), shard)
                .readLatest()
                .orElseThrow();
        WalEntryCodec codec = new WalEntryCodec(WalStorageSchema.of(info, WalSchemaProfile.SPEC), allocator);
        WalLog log = new WalLog(new LocalObjectStore(table), shard, codec);
        log.append(
                log.findTip(claim.walEntryPositionLastSeen()),
                encode(codec, claim.writerEpoch(), List.of(rows(1, 3, "x"))));

        assertThatThrownBy(() -> scanReplayedCopy(table)).hasMessageContaining("schema doesn't match");
    }

    /** Which single departure from the lance-java-7.0 entry schema lance-core 7.0.0 refuses. */
    enum Departure {
        GENERATION_METADATA,
        FIELD_ID_METADATA,
        NULLABLE_NON_KEY_FIELD,
        NO_TABLE_METADATA,
        NONE
    }

    @ParameterizedTest
    @EnumSource(Departure.class)
    void lanceCoreReplayIsStrictAboutTheEntrySchema(Departure departure) {
        Path table = dir.resolve("table");
        TableInfo info = createTableWithClaimedShard(table);
        ShardManifest claim = new ManifestStore(new LocalObjectStore(table), shard)
                .readLatest()
                .orElseThrow();
        Schema schema =
                WalStorageSchema.of(info, WalSchemaProfile.LANCE_JAVA_7_0).schema();
        Map<String, String> metadata = new LinkedHashMap<>(schema.getCustomMetadata());
        metadata.put("writer_epoch", Long.toString(claim.writerEpoch()));
        List<Field> fields = new ArrayList<>(schema.getFields());
        switch (departure) {
            case GENERATION_METADATA -> metadata.put("generation", "1");
            case FIELD_ID_METADATA -> fields.replaceAll(f -> new Field(
                    f.getName(),
                    new FieldType(
                            f.isNullable(),
                            f.getType(),
                            null,
                            merged(
                                    f.getMetadata(),
                                    WalStorageSchema.FIELD_ID,
                                    Integer.toString(info.fieldId(f.getName())))),
                    f.getChildren()));
            case NULLABLE_NON_KEY_FIELD -> fields.replaceAll(f ->
                    f.getName().equals("score") ? new Field(f.getName(), FieldType.nullable(f.getType()), null) : f);
            case NO_TABLE_METADATA -> metadata.remove("owner");
            case NONE -> {}
        }
        Schema written = new Schema(fields, metadata);
        byte[] entry;
        try (VectorSchemaRoot root = rootOf(written, rows(1, 3, "x"))) {
            entry = ArrowStreams.write(allocator, written, metadata, List.of(root));
        }
        new LocalObjectStore(table)
                .putIfAbsent(
                        TableLayout.walFolder(shard)
                                + BitReversedName.walEntryName(claim.walEntryPositionLastSeen() + 1),
                        entry);

        if (departure == Departure.NONE) {
            assertThat(scanReplayedCopy(table)).hasSize(3);
        } else {
            assertThatThrownBy(() -> scanReplayedCopy(table)).hasMessageContaining("schema doesn't match");
        }
    }

    private static Map<String, String> merged(Map<String, String> metadata, String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(metadata);
        m.put(key, value);
        return m;
    }

    @Test
    void weDecodeTheEntriesLanceCoreWrites() throws IOException {
        Path table = dir.resolve("table");
        TableInfo info =
                LanceTables.create(table.toString(), TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        List<List<Row>> puts = List.of(rows(1, 4, "p"), List.of(new Row(2, null, 0.5), new Row(9, "nine", 9)));
        try (Dataset ds = LanceTables.openDataset(allocator, table.toString(), Map.of());
                ShardWriter writer = ds.memWalWriter(shard.toString(), durable())) {
            for (List<Row> put : puts) {
                try (ArrowReader reader = readerOf(info.schema(), put)) {
                    writer.put(reader);
                }
            }
        }

        WalStorageSchema storage = WalStorageSchema.of(info, WalSchemaProfile.LANCE_JAVA_7_0);
        List<Map<String, Object>> decoded = new ArrayList<>();
        List<Long> epochs = new ArrayList<>();
        long next = new WalLog(new LocalObjectStore(table), shard, new WalEntryCodec(storage, allocator))
                .readFrom(1, entry -> {
                    epochs.add(entry.writerEpoch());
                    assertThat(entry.sentinel()).isFalse();
                    decoded.addAll(Rows.of(entry.batches()));
                });

        assertThat(next).as("lance-core appends one entry per durable put").isEqualTo(puts.size() + 1);
        assertThat(epochs).containsOnly(1L);
        assertThat(decoded)
                .containsExactlyElementsOf(
                        puts.stream().flatMap(List::stream).map(Row::asMap).toList());
    }

    private TableInfo createTableWithClaimedShard(Path table) {
        TableInfo info =
                LanceTables.create(table.toString(), TABLE, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        try (Dataset ds = LanceTables.openDataset(allocator, table.toString(), Map.of());
                ShardWriter writer = ds.memWalWriter(shard.toString(), durable())) {
            assertThat(writer.shardId()).isEqualTo(shard.toString());
        }
        return info;
    }

    /** Opens a lance-core writer on a copy (it claims and replays), and scans its memtable. */
    private List<Map<String, Object>> scanReplayedCopy(Path table) {
        Path copy = dir.resolve("copy");
        Folders.copyTree(table, copy);
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Dataset ds = LanceTables.openDataset(allocator, copy.toString(), Map.of());
                ShardWriter writer = ds.memWalWriter(shard.toString(), durable());
                LsmScanner scanner = writer.lsmScanner().project(List.of("id", "name", "score"));
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(Rows.of(reader.getVectorSchemaRoot()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        return rows;
    }

    private static ShardWriterConfig durable() {
        return new ShardWriterConfig().withDurableWrite(true).withMaxWalFlushIntervalMs(10);
    }

    private static List<Map<String, Object>> lastWriteWins(List<List<List<Row>>> entries) {
        TreeMap<Long, Map<String, Object>> model = new TreeMap<>();
        entries.stream().flatMap(List::stream).flatMap(List::stream).forEach(r -> model.put(r.id(), r.asMap()));
        return new ArrayList<>(model.values());
    }

    private static List<Row> rows(long fromId, long toId, String prefix) {
        List<Row> rows = new ArrayList<>();
        for (long id = fromId; id <= toId; id++) {
            rows.add(new Row(id, prefix + id, id * 1.5));
        }
        return rows;
    }

    private byte[] encode(WalEntryCodec codec, long epoch, List<List<Row>> batches) {
        List<VectorSchemaRoot> roots = new ArrayList<>();
        try {
            for (List<Row> batch : batches) {
                roots.add(rootOf(codec.storageSchema().schema(), batch));
            }
            return codec.encode(epoch, 1, roots);
        } finally {
            roots.forEach(VectorSchemaRoot::close);
        }
    }

    private VectorSchemaRoot rootOf(Schema schema, List<Row> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            ((BigIntVector) root.getVector("id")).setSafe(i, row.id());
            if (row.name() == null) {
                ((VarCharVector) root.getVector("name")).setNull(i);
            } else {
                ((VarCharVector) root.getVector("name"))
                        .setSafe(i, row.name().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            ((Float8Vector) root.getVector("score")).setSafe(i, row.score());
            if (root.getVector(WalStorageSchema.TOMBSTONE) != null) {
                ((BitVector) root.getVector(WalStorageSchema.TOMBSTONE)).setSafe(i, 0);
            }
        }
        root.setRowCount(rows.size());
        return root;
    }

    private ArrowReader readerOf(Schema schema, List<Row> rows) {
        try (VectorSchemaRoot root = rootOf(schema, rows)) {
            byte[] stream = ArrowStreams.write(allocator, schema, schema.getCustomMetadata(), List.of(root));
            return new ArrowStreamReader(new ByteArrayInputStream(stream), allocator);
        }
    }
}
