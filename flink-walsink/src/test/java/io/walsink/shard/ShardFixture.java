package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.annotation.Internal;
import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TableRows;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.recovery.ShardRestore;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.Sleeper;
import io.walsink.storage.fault.FaultInjectingObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
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
 * A real Lance table on local disk with one shard, a store that can inject faults, and a
 * last-write-wins model of what was written, for shard-engine tests.
 */
@Internal
public final class ShardFixture implements AutoCloseable {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    static final UUID SHARD = UUID.fromString("5d1c8a2e-7b3f-4e0a-9c6d-1f2e3a4b5c6d");

    final Path tablePath;
    final BufferAllocator allocator = new RootAllocator();
    final TableInfo table;
    final FaultInjectingObjectStore store;
    public final TableContext context;
    /** Last-write-wins model: id -> name, deleted ids absent. */
    final Map<Long, String> model = new TreeMap<>();

    public ShardFixture(Path dir, WalSchemaProfile profile, ShardWriterConfig config) {
        this(dir, profile, config, Sleeper.SYSTEM);
    }

    public ShardFixture(Path dir, WalSchemaProfile profile, ShardWriterConfig config, Sleeper sleeper) {
        this.tablePath = dir.resolve("table");
        this.table = LanceTables.create(
                tablePath.toString(), SCHEMA, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        this.store = new FaultInjectingObjectStore(new LocalObjectStore(tablePath), sleeper);
        this.context =
                new TableContext(new TableLocation(store, table.uri(), Map.of()), table, profile, config, allocator);
    }

    public ShardPlacement placement() {
        return ShardPlacement.bucket(table.sharding().specId(), 0);
    }

    public ShardWriter open() {
        return ShardOpener.open(context, SHARD, 0, placement());
    }

    ShardWriter restore(ShardDescriptor asOf) {
        return ShardRestore.restore(context, asOf, placement());
    }

    /** Opens the shard through another context (another store layer, table location or config). */
    public ShardWriter open(TableContext other) {
        return ShardOpener.open(other, SHARD, 0, placement());
    }

    /** The same table seen through {@code other} (e.g. a retrying layer over the faulty store). */
    TableContext contextOver(ObjectStore other, ShardWriterConfig config) {
        return contextOver(other, config, allocator);
    }

    /** As above, with the memtables and SSTable writes in {@code memory} (e.g. an owner's capped allocator). */
    TableContext contextOver(ObjectStore other, ShardWriterConfig config, BufferAllocator memory) {
        return new TableContext(
                new TableLocation(other, table.uri(), Map.of()),
                table,
                context.storage().profile(),
                config,
                memory);
    }

    /** The table as the walsink reader merges it, bypassing injected faults: id -> name. */
    public Map<Long, String> read(ReadMode mode) {
        TableRows rows = new SnapshotReader(
                        new TableLocation(store.delegate(), tablePath.toString(), Map.of()),
                        context.storage().profile(),
                        allocator)
                .read(mode);
        Map<Long, String> byId = new TreeMap<>();
        for (Map<String, Object> row : rows.rows()) {
            byId.put((Long) row.get("id"), (String) row.get("name"));
        }
        return byId;
    }

    /**
     * Opens the shard again (plain recovery) and checks that it holds {@code expected}: LATEST
     * right after the replay, COMMITTED once everything is appended, written and published.
     */
    void reopenAndExpect(Map<Long, String> expected) {
        ShardWriter reopened = open();
        assertThat(read(ReadMode.LATEST)).isEqualTo(expected);
        flushAndPublishAll(reopened);
        assertThat(read(ReadMode.COMMITTED)).isEqualTo(expected);
        reopened.close();
    }

    /** A copy of the model as it is now, e.g. the state a crash must preserve. */
    Map<Long, String> modelNow() {
        return new TreeMap<>(model);
    }

    /** Upserts {@code id -> name} through the writer and the model. */
    void put(ShardWriter writer, long id, String name) {
        try (VectorSchemaRoot rows = rows(new long[] {id}, new String[] {name})) {
            writer.put(rows);
        }
        model.put(id, name);
    }

    void delete(ShardWriter writer, long id) {
        try (VectorSchemaRoot rows = rows(new long[] {id}, new String[] {null})) {
            writer.delete(rows);
        }
        model.remove(id);
    }

    VectorSchemaRoot rows(long[] ids, String[] names) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int i = 0; i < ids.length; i++) {
            id.setSafe(i, ids[i]);
            if (names[i] == null) {
                name.setNull(i);
            } else {
                name.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(ids.length);
        return root;
    }

    /** WAL entry positions present in storage, ascending. */
    List<Long> walPositions() {
        List<Long> positions = new ArrayList<>();
        for (ObjectMeta meta : store.delegate().listAll(TableLayout.walFolder(SHARD))) {
            String name = meta.key().substring(meta.key().lastIndexOf('/') + 1);
            BitReversedName.parseWalEntryPosition(name).ifPresent(positions::add);
        }
        positions.sort(null);
        return positions;
    }

    WalLog wal() {
        return new WalLog(store.delegate(), SHARD, context.codec());
    }

    @Override
    public void close() {
        allocator.close();
    }
}
