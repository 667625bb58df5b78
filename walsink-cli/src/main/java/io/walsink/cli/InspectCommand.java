package io.walsink.cli;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardFieldEntry;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalLog;
import io.walsink.recovery.CompactionLeaseHolder;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;

/** {@code walsink inspect}: the table's schema, key and sharding, and each shard's state. */
final class InspectCommand {
    private final PrintStream out;

    InspectCommand(PrintStream out) {
        this.out = out;
    }

    int run(Args args) {
        String path = args.table();
        S3Options s3 = args.s3();
        StorageLocation location = StorageLocation.parse(path);
        TableInfo info = LanceTables.open(location.lanceUri(), LanceStorageOptions.of(location, s3), true);
        List<Map<String, Object>> shards = new ArrayList<>();
        Optional<CompactionLeaseHolder> lease;
        Map<UUID, Long> merged;
        try (BufferAllocator allocator = new RootAllocator()) {
            merged = MergedGenerations.latest(allocator, location.lanceUri(), LanceStorageOptions.of(location, s3));
        }
        try (ObjectStore store = ObjectStores.open(path, s3)) {
            lease = CompactionLeaseHolder.read(store);
            for (UUID shard : TableLayout.shards(store)) {
                Map<String, Object> state = shardState(store, shard);
                state.put("merged_through", merged.getOrDefault(shard, 0L));
                shards.add(state);
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("table", path);
        report.put("version", info.version());
        List<Map<String, Object>> schema = new ArrayList<>();
        for (Field f : info.schema().getFields()) {
            Map<String, Object> column = new LinkedHashMap<>();
            column.put("name", f.getName());
            column.put("type", f.getType().toString());
            column.put("nullable", f.isNullable());
            schema.add(column);
        }
        report.put("schema", schema);
        report.put("primary_key", info.primaryKey());
        TableSharding sharding = info.sharding().sharding();
        Map<String, Object> sh = new LinkedHashMap<>();
        sh.put("transform", sharding.transform().name().toLowerCase(Locale.ROOT));
        sh.put("column", sharding.sourceColumn().orElse(null));
        sh.put(
                "buckets",
                sharding.numBuckets().isPresent() ? sharding.numBuckets().getAsInt() : null);
        report.put("sharding", sh);
        report.put("shards", shards);
        Instant now = Instant.now();
        report.put(
                "compaction_lease",
                lease.map(l -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("holder", l.holder());
                            m.put("expires", l.expiresAt().toString());
                            m.put("held", l.heldAt(now));
                            return m;
                        })
                        .orElse(null));
        if (args.flag("json")) {
            out.println(Json.write(report));
            return WalsinkCli.OK;
        }
        out.println("Table        " + path + " (version " + info.version() + ")");
        out.println("Primary key  " + (info.primaryKey().isEmpty() ? "(none: append-only)" : info.primaryKey()));
        out.println("Sharding     " + sh.get("transform")
                + (sharding.sourceColumn().isPresent()
                        ? " on " + sharding.sourceColumn().get() + " into " + sh.get("buckets") + " buckets"
                        : ""));
        out.println("Schema");
        for (Map<String, Object> column : schema) {
            out.println("  " + column.get("name") + " " + column.get("type")
                    + (Boolean.TRUE.equals(column.get("nullable")) ? "" : " NOT NULL"));
        }
        out.println("Compaction   "
                + lease.map(l -> l.heldAt(now)
                                ? "lease held by " + l.holder() + " until " + l.expiresAt()
                                : "lease free (last taken by " + l.holder() + ")")
                        .orElse("no compactor has run"));
        out.println("Shards       " + shards.size());
        List<String> header = List.of(
                "shard",
                "bucket",
                "epoch",
                "manifest",
                "replay_after",
                "wal_tip",
                "replay_entries",
                "replay_bytes",
                "sstables",
                "sstable_bytes",
                "published_through",
                "merged_through",
                "status");
        List<List<String>> rows = new ArrayList<>();
        for (Map<String, Object> s : shards) {
            rows.add(header.stream()
                    .map(h -> s.get(h) == null ? "-" : String.valueOf(s.get(h)))
                    .toList());
        }
        new TextTable(out).print(header, rows);
        return WalsinkCli.OK;
    }

    private static Map<String, Object> shardState(ObjectStore store, UUID shard) {
        Optional<ShardManifest> latest = new ManifestStore(store, shard).readLatest();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("shard", shard.toString());
        s.put(
                "bucket",
                latest.flatMap(m -> m.shardFieldEntries().stream()
                                .filter(e -> e.fieldId().equals(ShardFieldEntry.BUCKET_FIELD_ID))
                                .findFirst())
                        .map(e -> e.int32Value().isPresent()
                                ? (Object) e.int32Value().getAsInt()
                                : null)
                        .orElse(null));
        s.put("epoch", latest.map(ShardManifest::writerEpoch).orElse(0L));
        s.put("manifest", latest.map(ShardManifest::version).orElse(0L));
        s.put(
                "replay_after",
                latest.map(ShardManifest::replayAfterWalEntryPosition).orElse(0L));
        NavigableMap<Long, ObjectMeta> wal = WalLog.listEntries(store, shard);
        s.put("wal_tip", WalLog.highestPosition(wal));
        long replayAfter =
                latest.map(ShardManifest::replayAfterWalEntryPosition).orElse(0L);
        long pendingEntries = 0;
        long pendingBytes = 0;
        for (Map.Entry<Long, ObjectMeta> e : wal.entrySet()) {
            if (e.getKey() > replayAfter) {
                pendingEntries++;
                pendingBytes += e.getValue().size();
            }
        }
        s.put("replay_entries", pendingEntries); // what a writer opening the shard replays
        s.put("replay_bytes", pendingBytes);
        List<SsTable> tables = latest.map(ShardManifest::sstables).orElse(List.of());
        s.put("sstables", tables.size());
        s.put(
                "published_through",
                tables.stream().mapToLong(SsTable::generation).max().orElse(0));
        long ssTableBytes = 0;
        for (SsTable t : tables) {
            for (ObjectMeta meta : store.listAll(TableLayout.ssTableFolder(shard, t.path()))) {
                ssTableBytes += meta.size();
            }
        }
        s.put("sstable_bytes", ssTableBytes);
        s.put("status", latest.map(m -> m.isSealed() ? "sealed" : "active").orElse("unclaimed"));
        return s;
    }
}
