package io.walsink.testing;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardClaimer;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.PrimaryKeyMetadata;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.schema.LanceField;

/**
 * Lays out a MemWAL table the way the shard engine will: base rows through lance-core, and per
 * shard WAL entries, SSTables written by {@link SsTableWriter} and manifest versions publishing
 * them. Rows are given as {@link RowOp}s, so a test can replay the same ops into a
 * {@link RowModel}.
 */
public final class MemWalTable {
    private final String uri;
    private final Map<String, String> options;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final Schema schema;
    private final WalStorageSchema storage;

    public MemWalTable(
            String uri,
            Map<String, String> options,
            ObjectStore store,
            WalSchemaProfile profile,
            BufferAllocator allocator) {
        this.uri = uri;
        this.options = Map.copyOf(options);
        this.store = store;
        this.allocator = allocator;
        Map<String, Integer> fieldIds = new LinkedHashMap<>();
        try (Dataset ds = LanceTables.openDataset(allocator, uri, options)) {
            this.schema = ds.getSchema();
            for (LanceField f : ds.getLanceSchema().fields()) {
                fieldIds.put(f.getName(), f.getId());
            }
        }
        List<String> key = new ArrayList<>();
        for (Field f : schema.getFields()) {
            if (PrimaryKeyMetadata.isKey(f)) {
                key.add(f.getName());
            }
        }
        this.storage = WalStorageSchema.derive(schema, key, fieldIds, profile);
    }

    public WalStorageSchema storage() {
        return storage;
    }

    public List<String> columns() {
        return schema.getFields().stream().map(Field::getName).toList();
    }

    /** Appends {@code rows} to the base table (generation 0) with lance-core. */
    public void writeBase(List<RowOp> rows) {
        java.io.ByteArrayOutputStream ipc = new java.io.ByteArrayOutputStream();
        try (VectorSchemaRoot root = ArrowRows.batch(
                        allocator, schema, rows.stream().map(RowOp::values).toList());
                ArrowStreamWriter writer = new ArrowStreamWriter(root, null, ipc)) {
            writer.start();
            writer.writeBatch();
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator);
                Dataset ignored = Dataset.write()
                        .allocator(allocator)
                        .reader(reader)
                        .uri(uri)
                        .mode(WriteParams.WriteMode.APPEND)
                        .storageOptions(options)
                        .execute()) {
            // appended
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Shard shard() {
        return new Shard(UUID.randomUUID());
    }

    /** A shard under the given id, e.g. the id a writer derives for a bucket. */
    public Shard shard(UUID id) {
        return new Shard(id);
    }

    /** One shard, claimed at creation (epoch 1); positions and generations count up from 1. */
    public final class Shard {
        private final UUID id;
        private final ManifestStore manifests;
        private final WalEntryCodec codec;
        private final WalLog wal;
        private final Memtables memtables;
        private final List<WrittenSsTable> written = new ArrayList<>();
        private ShardManifest current;
        private long nextGeneration = 1;
        private long nextPosition = 1;

        private Shard(UUID id) {
            this.id = id;
            this.manifests = new ManifestStore(store, id);
            this.codec = new WalEntryCodec(storage, allocator);
            this.wal = new WalLog(store, id, codec);
            this.memtables = new Memtables(storage, allocator);
            this.current = new ShardClaimer(manifests).claim(ShardPlacement.none());
        }

        public UUID id() {
            return id;
        }

        /** One memtable generation: its rows go to one WAL entry, then into an SSTable (not yet published). */
        public WrittenSsTable flush(List<RowOp> ops, int batchMaxRows) {
            try (Memtable m = memtables.build(nextGeneration++, batchMaxRows, ops)) {
                memtables.appendToWal(m, wal, codec, current.writerEpoch(), nextPosition++);
                m.freeze();
                WrittenSsTable t = new SsTableWriter(
                                new TableLocation(new LocalObjectStore(Path.of(uri)), uri, options),
                                id,
                                storage,
                                allocator)
                        .write(m);
                written.add(t);
                return t;
            }
        }

        /** Rows of the active generation, made durable in one WAL entry but not flushed. */
        public void walEntry(List<RowOp> ops) {
            try (Memtable m = memtables.build(nextGeneration, 4, ops)) {
                memtables.appendToWal(m, wal, codec, current.writerEpoch(), nextPosition++);
            }
        }

        public void sentinel() {
            wal.append(nextPosition++, codec.encodeSentinel(current.writerEpoch()));
        }

        /** A manifest version publishing every SSTable flushed so far. */
        public ShardManifest publish() {
            ShardManifest.Builder next = current.toBuilder()
                    .currentGeneration(nextGeneration)
                    .walEntryPositionLastSeen(nextPosition - 1)
                    .sstables(List.of());
            for (WrittenSsTable t : written) {
                next.addSstable(SsTable.of(t.generation(), t.path())
                        .withInMemoryBytes(t.inMemoryBytes())
                        .withPhysicalRows(t.physicalRows())
                        .withPrimaryKeyBytes(t.primaryKeyBytes()));
                next.replayAfterWalEntryPosition(t.lastWalPosition());
            }
            current = manifests.writeNext(current, next.build());
            return current;
        }
    }
}
