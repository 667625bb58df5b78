package io.walsink.cli;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardClaimer;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardManifestCodec;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.TemporaryFileNames;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.ArrowRows;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The commands against tables laid out by the library's own writer code, healthy and damaged. */
class WalsinkCliTest {
    static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("score", new ArrowType.Int(32, true))));
    static final List<String> COLUMNS = List.of("id", "name", "score");

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private BufferAllocator allocator;
    private String uri;
    private LocalObjectStore store;
    private MemWalTable table;
    private MemWalTable.Shard a;
    private MemWalTable.Shard b;
    private RowModel committed;
    private RowModel latest;

    private static RowOp put(long id, String name, Integer score) {
        return RowOp.put(row("id", id, "name", name, "score", score));
    }

    private static RowOp delete(long id) {
        return RowOp.delete(row("id", id));
    }

    /** Base rows, shard a with two published generations and a WAL tail, shard b with one generation. */
    @BeforeEach
    void createTable() {
        allocator = allocators.allocator();
        uri = dir.resolve("table").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        List<RowOp> base = List.of(put(1, "base", 1), put(2, "base", 2), put(3, "base", 3), put(4, "base,4", 4));
        List<RowOp> aGen1 = List.of(put(1, "a1", 10), put(5, "a1", 50), delete(3));
        List<RowOp> aGen2 = List.of(put(5, "a2", 51), put(7, "a2", null));
        List<RowOp> aWal = List.of(put(9, "w", 90), delete(1));
        List<RowOp> bGen1 = List.of(put(2, "b1", 20), delete(4), put(6, "b1", 60));
        table.writeBase(base);
        a = table.shard();
        a.flush(aGen1, 4);
        a.publish();
        a.flush(aGen2, 4);
        a.publish();
        a.walEntry(aWal);
        b = table.shard();
        b.flush(bGen1, 4);
        b.publish();
        committed = new RowModel(COLUMNS, List.of("id"))
                .apply(base)
                .apply(aGen1)
                .apply(aGen2)
                .apply(bGen1);
        latest = new RowModel(COLUMNS, List.of("id"))
                .apply(base)
                .apply(aGen1)
                .apply(aGen2)
                .apply(bGen1)
                .apply(aWal);
    }

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new WalsinkCli(o, e).run(args);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void verifyPassesOnAHealthyTable() {
        Run r = run("verify", uri);
        assertThat(r.out()).startsWith("OK: ");
        assertThat(r.code()).isZero();
        assertThat(run("verify", "file://" + uri).code()).isZero();
    }

    @Test
    void verifyNamesAWalGap() {
        store.delete(TableLayout.walFolder(a.id()) + BitReversedName.walEntryName(2));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out())
                .contains("WAL gap: position 2 missing below position 3")
                .contains(a.id().toString());
    }

    @Test
    void verifyNamesAManifestGap() {
        ManifestStore manifests = new ManifestStore(store, a.id());
        store.delete(manifests.versionKey(2));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out()).contains("manifest gap: version 2 is missing (versions present: 1,3)");
    }

    @Test
    void verifyNamesAMissingSsTable() throws IOException {
        ShardManifest m = new ManifestStore(store, b.id()).readLatest().orElseThrow();
        String path = m.sstables().get(0).path();
        deleteTree(Path.of(uri, TableLayout.shardFolder(b.id()), path));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out())
                .contains(
                        path + "/: SSTable of generation 1 listed by manifest version " + m.version() + " is missing");
    }

    @Test
    void verifyNamesAnSsTablePathOutsideTheTable() {
        ManifestStore manifests = new ManifestStore(store, b.id());
        ShardManifest m = manifests.readLatest().orElseThrow();
        ShardManifest bad = m.toBuilder()
                .sstables(List.of(SsTable.of(1, "../../../elsewhere_gen_1")))
                .build();
        store.put(manifests.versionKey(m.version()), ShardManifestCodec.encode(bad));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out()).contains("SSTable path '../../../elsewhere_gen_1'");
    }

    @Test
    void verifyNamesAStrayTemporaryFile() throws IOException {
        Path tmp = Path.of(uri, TableLayout.walFolder(a.id()), TemporaryFileNames.next());
        Files.write(tmp, new byte[] {1, 2, 3});
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out()).contains(tmp.getFileName().toString()).contains("temporary file of an interrupted write");
    }

    @Test
    void verifyNamesAnEpochGoingBack() {
        ManifestStore manifests = new ManifestStore(store, a.id());
        ShardManifest m = manifests.readLatest().orElseThrow();
        store.putIfAbsent(
                manifests.versionKey(m.version() + 1),
                ShardManifestCodec.encode(m.withVersion(m.version() + 1).withWriterEpoch(0)));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out()).contains("writer_epoch went back 1 -> 0");
    }

    /**
     * A restore of shard a as the writer protocol does it: a claim raises the epoch to 2, a fence
     * sentinel goes to the WAL tip (position 4), and position 5 gets an entry of the given epoch.
     *
     * @return the key of that entry
     */
    private String reclaimShardAAndAppendWithEpoch(long epoch, RowOp op) {
        ShardManifest claimed = new ShardClaimer(new ManifestStore(store, a.id())).claim(ShardPlacement.none());
        assertThat(claimed.writerEpoch()).isEqualTo(2);
        WalEntryCodec codec = new WalEntryCodec(table.storage(), allocator);
        WalLog wal = new WalLog(store, a.id(), codec);
        wal.append(4, codec.encodeSentinel(claimed.writerEpoch()));
        Memtables memtables = new Memtables(table.storage(), allocator);
        try (Memtable m = memtables.build(3, 4, List.of(op))) {
            memtables.appendToWal(m, wal, codec, epoch, 5);
        }
        return wal.key(5);
    }

    @Test
    void verifyPassesAfterARestoreFencedTheShard() {
        reclaimShardAAndAppendWithEpoch(2, put(11, "after restore", 1));
        Run r = run("verify", uri);
        assertThat(r.out()).startsWith("OK: ");
        assertThat(r.code()).isZero();
    }

    @Test
    void verifyNamesAWalEntryWhoseEpochWentBack() {
        String zombie = reclaimShardAAndAppendWithEpoch(1, put(11, "zombie", 1));
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out())
                .contains(zombie + ": writer_epoch went back along the WAL: 1 at position 5 after 2 at position 4")
                .contains("1 problem found");
    }

    @Test
    void verifyNamesAWalEntryThatMatchesNoProfile() {
        // an entry of another table's schema: one column, no primary key, no tombstone
        Schema other = new Schema(List.of(Field.notNullable("x", new ArrowType.Int(32, true))));
        WalEntryCodec codec = new WalEntryCodec(
                WalStorageSchema.derive(other, List.of(), Map.of(), WalSchemaProfile.LANCE_JAVA_7_0), allocator);
        String key = TableLayout.walFolder(b.id()) + BitReversedName.walEntryName(2);
        try (VectorSchemaRoot batch = ArrowRows.batch(allocator, other, List.of(Map.<String, Object>of("x", 1)))) {
            store.putIfAbsent(key, codec.encode(1, 2, List.of(batch)));
        }
        Run r = run("verify", uri);
        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(r.out()).contains(key + ": column 'id': missing");
    }

    /**
     * A LanceDB writer opened Lance's shard of bucket 1 (spec id, no field
     * entries) beside the shard walsink's previous release wrote for bucket 1 (field entries).
     */
    @Test
    void verifyNamesShardsThatOverlapOnABucket() {
        int spec = LanceTables.open(uri, Map.of()).sharding().specId();
        UUID legacy = ShardIds.legacyBucket(spec, 1);
        new ShardClaimer(new ManifestStore(store, legacy)).claim(ShardPlacement.bucket(spec, 1));
        new ShardClaimer(new ManifestStore(store, ShardIds.bucket(1))).claim(new ShardPlacement(spec, List.of()));
        Random random = new Random(18);
        UUID first = new UUID(random.nextLong(), random.nextLong());
        UUID second = new UUID(random.nextLong(), random.nextLong());
        new ShardClaimer(new ManifestStore(store, first)).claim(ShardPlacement.bucket(spec, 0));
        new ShardClaimer(new ManifestStore(store, second)).claim(ShardPlacement.bucket(spec, 0));

        Run r = run("verify", uri);

        assertThat(r.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        List<String> overlaps =
                r.out().lines().filter(l -> l.contains("shards overlap")).toList();
        assertThat(overlaps).hasSize(2);
        assertThat(overlaps.get(0))
                .contains("bucket 0")
                .contains(first.toString())
                .contains(second.toString());
        assertThat(overlaps.get(1))
                .contains("bucket 1")
                .contains(legacy + " (its field entries name bucket 1)")
                .contains(ShardIds.bucket(1) + " (its id is Lance's id of bucket 1)");
        assertThat(r.out())
                .contains(TableLayout.shardFolder(legacy) + ": shard of bucket 1 under the legacy id of earlier "
                        + "flink-walsink releases");
    }

    /**
     * A table of the previous release (its shard under the old id) is moved to Lance's id: the rows
     * read the same, the old shard is gone, verify finds nothing, and a second run has nothing to do.
     */
    @Test
    void migrateShardIdsMovesAPreviousReleasesShardToLancesId() {
        String old = dir.resolve("previous-release").toString();
        LanceTables.create(old, TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        LocalObjectStore oldStore = new LocalObjectStore(Path.of(old));
        int spec = LanceTables.open(old, Map.of()).sharding().specId();
        UUID legacy = ShardIds.legacyBucket(spec, 0);
        MemWalTable t = new MemWalTable(old, Map.of(), oldStore, WalSchemaProfile.SPEC, allocator);
        MemWalTable.Shard s = t.shard(legacy);
        s.flush(List.of(put(1, "g1", 1), put(2, "g1", 2)), 4);
        s.publish();
        s.flush(List.of(put(2, "g2", 20), delete(1)), 4);
        s.publish();
        s.walEntry(List.of(put(3, "w", 30)));
        String committedBefore = run("scan", old, "--format", "csv").out();
        String latestBefore =
                run("scan", old, "--mode", "latest", "--format", "csv").out();
        assertThat(run("verify", old).out()).contains("under the legacy id of earlier flink-walsink releases");

        Run dry = run("migrate-shard-ids", old, "--dry-run");
        assertThat(dry.out()).contains("bucket 0: shard " + legacy + " would move to " + ShardIds.unsharded());
        assertThat(oldStore.listAll(TableLayout.shardFolder(ShardIds.unsharded())))
                .isEmpty();

        Run r = run("migrate-shard-ids", old);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("bucket 0: shard " + legacy + " moved to " + ShardIds.unsharded());
        assertThat(oldStore.listAll(TableLayout.shardFolder(legacy))).isEmpty();
        assertThat(run("scan", old, "--format", "csv").out()).isEqualTo(committedBefore);
        assertThat(run("scan", old, "--mode", "latest", "--format", "csv").out())
                .isEqualTo(latestBefore);
        Run verify = run("verify", old);
        assertThat(verify.code()).as(verify.out()).isZero();
        assertThat(run("migrate-shard-ids", old).out()).startsWith("Nothing to migrate");
    }

    @Test
    void aTableWrittenInTheLanceJava70ProfileVerifiesAndScansItsWalTail() {
        String other = dir.resolve("lance-java-7.0").toString();
        LanceTables.create(other, TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        MemWalTable t = new MemWalTable(
                other, Map.of(), new LocalObjectStore(Path.of(other)), WalSchemaProfile.LANCE_JAVA_7_0, allocator);
        List<RowOp> gen1 = List.of(put(1, "g1", 1), put(2, "g1", 2));
        List<RowOp> tail = List.of(put(2, "w", 20), put(3, "w", null));
        MemWalTable.Shard s = t.shard();
        s.flush(gen1, 4);
        s.publish();
        s.walEntry(tail);
        Run verify = run("verify", other);
        assertThat(verify.out()).startsWith("OK: ");
        assertThat(verify.code()).isZero();

        Run scan = run("scan", other, "--mode", "latest", "--format", "csv");
        assertThat(scan.code()).as(scan.err()).isZero();
        List<String> expected = new ArrayList<>(List.of("id,name,score"));
        for (Map<String, Object> row :
                new RowModel(COLUMNS, List.of("id")).apply(gen1).apply(tail).rows()) {
            expected.add(
                    row.get("id") + "," + row.get("name") + "," + (row.get("score") == null ? "" : row.get("score")));
        }
        assertThat(scan.out().lines().toList()).containsExactlyElementsOf(expected);
    }

    @Test
    void scanPrintsTheModelsRows() throws IOException {
        Run json = run("scan", uri, "--format", "json");
        assertThat(json.code()).as(json.err()).isZero();
        List<Map<String, Object>> parsed = new ArrayList<>();
        for (JsonNode n : new ObjectMapper().readTree(json.out())) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", n.get("id").asLong());
            row.put("name", n.get("name").isNull() ? null : n.get("name").asText());
            row.put("score", n.get("score").isNull() ? null : n.get("score").asInt());
            parsed.add(row);
        }
        assertThat(parsed).containsExactlyElementsOf(committed.rows());

        Run csv = run("scan", uri, "--mode", "latest", "--format", "csv", "--columns", "id,name");
        List<String> expected = new ArrayList<>(List.of("id,name"));
        for (Map<String, Object> row : latest.rows()) {
            String name = (String) row.get("name");
            expected.add(row.get("id") + "," + (name.contains(",") ? "\"" + name + "\"" : name));
        }
        assertThat(csv.out().lines().toList()).containsExactlyElementsOf(expected);

        Run where = run("scan", uri, "--where", "name=a2", "--limit", "1");
        assertThat(where.out().lines().toList())
                .hasSize(4)
                .element(2)
                .asString()
                .isEqualTo("5   a2    51");
        assertThat(where.out()).endsWith("(1 row)\n");
    }

    @Test
    void inspectJsonMatchesTheShards() throws IOException {
        Run r = run("inspect", uri, "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertThat(report.get("primary_key").get(0).asText()).isEqualTo("id");
        assertThat(report.get("sharding").get("transform").asText()).isEqualTo("bucket");
        assertThat(report.get("sharding").get("buckets").asInt()).isEqualTo(2);
        assertThat(report.get("schema")).hasSize(3);
        Map<String, JsonNode> shards = new LinkedHashMap<>();
        report.get("shards").forEach(s -> shards.put(s.get("shard").asText(), s));
        assertThat(shards).containsOnlyKeys(a.id().toString(), b.id().toString());
        JsonNode sa = shards.get(a.id().toString());
        assertThat(sa.get("epoch").asLong()).isEqualTo(1);
        assertThat(sa.get("manifest").asLong()).isEqualTo(3);
        assertThat(sa.get("replay_after").asLong()).isEqualTo(2);
        assertThat(sa.get("wal_tip").asLong()).isEqualTo(3);
        assertThat(sa.get("sstables").asInt()).isEqualTo(2);
        assertThat(sa.get("replay_entries").asLong()).isEqualTo(1); // the WAL tail after replay_after
        assertThat(sa.get("replay_bytes").asLong()).isPositive();
        assertThat(sa.get("sstable_bytes").asLong()).isPositive();
        assertThat(sa.get("published_through").asLong()).isEqualTo(2);
        assertThat(sa.get("merged_through").asLong()).isZero();
        JsonNode sb = shards.get(b.id().toString());
        assertThat(sb.get("manifest").asLong()).isEqualTo(2);
        assertThat(sb.get("wal_tip").asLong()).isEqualTo(1);
        assertThat(sb.get("sstables").asInt()).isEqualTo(1);
        assertThat(sb.get("replay_entries").asLong()).isZero();
        assertThat(sb.get("replay_bytes").asLong()).isZero();

        Run human = run("inspect", uri);
        assertThat(human.out()).contains("Primary key  [id]").contains("bucket on id into 2 buckets");
    }

    /**
     * A consumer record written two hours ago is live under the default expiry (1 d) and is removed
     * by a collection told that records expire after an hour.
     */
    @Test
    void gcTakesTheConsumerRecordExpiry() {
        ConsumerRecords.write(
                store,
                new ConsumerRecord(
                        "etl",
                        "bucket-0",
                        0,
                        Instant.now().minus(Duration.ofHours(2)),
                        OptionalLong.empty(),
                        List.of()));
        Run kept = run("gc", uri);
        assertThat(kept.code()).as(kept.err()).isZero();
        assertThat(kept.out()).contains("consumer records expire after PT24H");
        assertThat(ConsumerRecords.readAll(store))
                .as("kept under the default expiry")
                .hasSize(1);

        Run expired = run("gc", uri, "--consumer-expiration", "1h");
        assertThat(expired.code()).as(expired.err()).isZero();
        assertThat(expired.out()).contains("consumer records expire after PT1H");
        assertThat(ConsumerRecords.readAll(store)).as("removed once expired").isEmpty();

        Run zero = run("gc", uri, "--consumer-expiration", "0s");
        assertThat(zero.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(zero.err()).contains("--consumer-expiration must be positive");
    }

    @Test
    void compactAndGcDryRunPrintSummaries() {
        Run dry = run("gc", uri, "--retention", "0s", "--dry-run");
        assertThat(dry.code()).as(dry.err()).isZero();
        assertThat(dry.out()).startsWith("Dry run, would remove from " + uri).contains("2 shards");

        Run compact = run("compact", uri);
        assertThat(compact.code()).as(compact.err()).isZero();
        assertThat(compact.out()).contains("Compacted " + uri + ": 3 generations merged over 2 shards");
        assertThat(run("scan", uri, "--format", "csv").out().lines().count())
                .isEqualTo(committed.rows().size() + 1);
        assertThat(run("verify", uri).code()).isZero();
        assertThat(run("inspect", uri, "--json").out())
                .as("inspect reports the merge progress, and the lease the compactor released")
                .contains("\"merged_through\":2")
                .contains("\"held\":false");
    }

    @Test
    void compactIsRefusedWhileAnotherCompactorHoldsTheLease() throws Exception {
        // The entry a running compactor (here: a job's) writes when it takes the table's lease.
        Path lease = Path.of(uri, "_walsink", "compaction-lease", String.format("%020d", 1));
        Files.createDirectories(lease.getParent());
        Files.writeString(
                lease, "holder=4242@taskmanager-1/ab12cd34\nexpires=" + (System.currentTimeMillis() + 600_000) + "\n");

        Run refused = run("compact", uri);

        assertThat(refused.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(refused.err()).contains("4242@taskmanager-1/ab12cd34").contains("holds the compaction lease");
        Run gcRefused = run("gc", uri, "--retention", "0s");
        assertThat(gcRefused.code()).as("gc shares the lease").isEqualTo(WalsinkCli.ERROR);
        assertThat(gcRefused.err()).contains("4242@taskmanager-1/ab12cd34").contains("holds the compaction lease");
        assertThat(run("inspect", uri, "--json").out())
                .contains("\"merged_through\":0")
                .contains("\"compaction_lease\":{\"holder\":\"4242@taskmanager-1/ab12cd34\"")
                .contains("\"held\":true");
        assertThat(run("inspect", uri).out()).contains("lease held by 4242@taskmanager-1/ab12cd34 until");
    }

    @Test
    void badUsageExitsWithTwo() {
        assertThat(run().code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(run("frobnicate", uri).code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(run("scan", uri, "--mode", "sometimes").code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(run("scan", uri, "--bogus").err()).contains("unknown option --bogus");
        assertThat(run("gc", uri, "--retention", "soon").code()).isEqualTo(WalsinkCli.ERROR);
        for (String c : List.of("inspect", "scan", "verify", "compact", "gc")) {
            assertThat(run(c, dir.resolve("nothing").toString()).code())
                    .as("%s on a path without a table", c)
                    .isEqualTo(WalsinkCli.ERROR);
        }
        for (String c : List.of("inspect", "scan", "verify", "compact", "gc")) {
            Run help = run(c, "--help");
            assertThat(help.code()).isZero();
            assertThat(help.out()).startsWith("Usage: walsink " + c);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
