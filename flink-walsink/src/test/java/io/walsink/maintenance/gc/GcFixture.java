package io.walsink.maintenance.gc;

import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TableRows;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectMeta;
import io.walsink.testing.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A real Lance table with one shard written by the shard engine, in simulated time: every file a
 * step creates gets that step's time as its modification time ({@link #endStep}), and the
 * collector runs on the same simulated clock. A last-write-wins model follows the writes,
 * restores roll it back to the checkpoint's copy.
 */
final class GcFixture implements AutoCloseable {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    static final UUID SHARD = UUID.fromString("0b5e2c1d-3f4a-4b6c-8d7e-9f0a1b2c3d4e");
    static final Duration STEP = Duration.ofHours(1);

    /** A checkpoint: the shard's descriptor, the model at that moment and when it was taken. */
    record Checkpoint(ShardDescriptor descriptor, Map<Long, String> model, Instant at) {}

    final Path tablePath;
    final BufferAllocator allocator = new RootAllocator();
    final LocalObjectStore store;
    final TableContext context;
    final SettableClock clock = new SettableClock(Instant.parse("2021-03-01T00:00:00Z"));
    Map<Long, String> model = new TreeMap<>();
    private final TableInfo table;
    private final Set<Path> stamped = new HashSet<>();
    private ShardWriter writer;

    GcFixture(Path dir) {
        this.tablePath = dir.resolve("table");
        this.table = LanceTables.create(
                tablePath.toString(), SCHEMA, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        this.store = new LocalObjectStore(tablePath);
        this.context = new TableContext(
                new TableLocation(store, table.uri(), Map.of()),
                table,
                WalSchemaProfile.SPEC,
                ShardWriterConfig.defaults(),
                allocator);
        this.writer = ShardOpener.open(context, SHARD, 0, placement());
        endStep();
    }

    private ShardPlacement placement() {
        return ShardPlacement.bucket(table.sharding().specId(), 0);
    }

    /** Simulated time moves one step on; what the step writes is stamped by {@link #endStep}. */
    void beginStep() {
        clock.advance(STEP);
    }

    /** Every file created since the last call gets the current simulated time. */
    void endStep() {
        FileTime now = FileTime.from(clock.instant());
        try (Stream<Path> files = Files.walk(tablePath)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (stamped.add(file)) {
                    Files.setLastModifiedTime(file, now);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void put(long id, String name) {
        write(id, name, false);
        model.put(id, name);
    }

    void delete(long id) {
        write(id, null, true);
        model.remove(id);
    }

    private void write(long id, String name, boolean delete) {
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(SCHEMA, allocator)) {
            ((BigIntVector) rows.getVector(0)).setSafe(0, id);
            VarCharVector names = (VarCharVector) rows.getVector(1);
            if (name == null) {
                names.setNull(0);
            } else {
                names.setSafe(0, name.getBytes(StandardCharsets.UTF_8));
            }
            rows.setRowCount(1);
            if (delete) {
                writer.delete(rows);
            } else {
                writer.put(rows);
            }
        }
    }

    /** Makes every row durable in the WAL (what a tick or a barrier does). */
    void appendAll() {
        SyncShardDriver.appendAllPending(writer);
    }

    /** Appends, freezes, writes and publishes everything: COMMITTED then equals the model. */
    void publishAll() {
        SyncShardDriver.flushAndPublishAll(writer);
    }

    /**
     * A failed attempt: an SSTable is written but never published, then the writer dies and the
     * shard is opened again (plain recovery replays the rows, which the next flush writes anew).
     *
     * @return the folder of the orphaned SSTable
     */
    String failedAttempt() {
        appendAll();
        writer.freezeActive();
        appendAll();
        SyncShardDriver.flushFrozen(writer);
        List<io.walsink.shard.io.WrittenSsTable> written = writer.unpublished();
        String orphan = written.get(written.size() - 1).path();
        writer.close();
        writer = ShardOpener.open(context, SHARD, 0, placement());
        return orphan;
    }

    Checkpoint checkpoint() {
        appendAll();
        return new Checkpoint(writer.snapshot(), new TreeMap<>(model), clock.instant());
    }

    /** Restores the shard as of {@code c} (the running writer dies first) and the model with it. */
    void restore(Checkpoint c) {
        if (writer != null) {
            writer.close();
            writer = null;
        }
        writer = ShardRestore.restore(context, c.descriptor(), placement());
        model = new TreeMap<>(c.model());
    }

    GcSummary collect(GarbageCollector.Options options) {
        return new GarbageCollector(store, options, clock).collect();
    }

    Map<Long, String> read(ReadMode mode) {
        TableRows rows = new SnapshotReader(
                        new TableLocation(store, tablePath.toString(), Map.of()), WalSchemaProfile.SPEC, allocator)
                .read(mode);
        Map<Long, String> byId = new TreeMap<>();
        for (Map<String, Object> row : rows.rows()) {
            byId.put((Long) row.get("id"), (String) row.get("name"));
        }
        return byId;
    }

    List<Long> walPositions() {
        List<Long> positions = new ArrayList<>();
        for (ObjectMeta meta : store.listAll(TableLayout.walFolder(SHARD))) {
            BitReversedName.parseWalEntryPosition(
                            meta.key().substring(meta.key().lastIndexOf('/') + 1))
                    .ifPresent(positions::add);
        }
        positions.sort(null);
        return positions;
    }

    ManifestStore manifests() {
        return new ManifestStore(store, SHARD);
    }

    List<Long> manifestVersions() {
        return manifests().listVersions();
    }

    ShardManifest latest() {
        return manifests().readLatest().orElseThrow();
    }

    /** SSTable folders holding at least one file. */
    Set<String> ssTableFolders() {
        String prefix = TableLayout.shardFolder(SHARD);
        Set<String> folders = new TreeSet<>();
        for (ObjectMeta meta : store.listAll(prefix)) {
            String rest = meta.key().substring(prefix.length());
            int slash = rest.indexOf('/');
            if (slash > 0 && TableLayout.isSsTableFolderName(rest.substring(0, slash))) {
                folders.add(rest.substring(0, slash));
            }
        }
        return folders;
    }

    /** Folders listed by any manifest version still present. */
    Set<String> referencedFolders() {
        Set<String> referenced = new TreeSet<>();
        for (long v : manifestVersions()) {
            for (SsTable t : manifests().read(v).sstables()) {
                referenced.add(t.path());
            }
        }
        return referenced;
    }

    /** Every object of the table's MemWAL and walsink folders, with its size. */
    Map<String, Long> objects() {
        Map<String, Long> all = new TreeMap<>();
        for (String prefix : List.of("_mem_wal/", "_walsink/")) {
            for (ObjectMeta meta : store.listAll(prefix)) {
                all.put(meta.key(), meta.size());
            }
        }
        return all;
    }

    @Override
    public void close() {
        if (writer != null) {
            writer.close();
        }
        allocator.close();
    }
}
