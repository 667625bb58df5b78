package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.RowDataBucketHasher;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.MissingPrimaryKeyException;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.read.TableRows;
import io.walsink.read.snapshot.ShardReader;
import io.walsink.shard.ShardOpener;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AppendEvents;
import io.walsink.testing.BaseVersions;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import io.walsink.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append table (no primary key) written by two subtasks into four round-robin shards, with task
 * failures and store faults injected and the sink's compaction on: every input row is in the table
 * exactly once (each id is sent twice, as two identical rows, so nothing may be deduplicated
 * either), for walsink's readers, lance-core and LanceDB alike.
 */
class AppendTableJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final int SHARDS = 4;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void appendRowsSurviveFailuresExactlyOnceAcrossFourShards() throws Exception {
        long seed = FailoverTestSupport.seed("appendRowsSurviveFailuresExactlyOnceAcrossFourShards", 4_401);
        Random random = new Random(seed);
        long n = 20_000;
        long firstFailure = n / 5 + random.nextInt((int) (n / 5));
        long secondFailure = n * 3 / 5 + random.nextInt((int) (n / 5));
        Path table = dir.resolve("events");
        List<String> restores;
        try (LogCapture log = LogCapture.of(ShardOpener.class)) {
            run(table, n, seed, firstFailure, secondFailure);
            restores = log.messages(Level.WARN);
        }
        // Restores from checkpoints rolled back rows written after them (which a replay re-sends, maybe to another
        // shard).
        assertThat(restores).as("seed %d", seed).anyMatch(m -> m.contains("rolled back orphan entries"));

        assertThat(FailoverTestSupport.FAILED_AT).as("seed %d", seed).containsOnly(firstFailure, secondFailure);
        assertThat(HarnessSupport.shards(table)).as("seed %d", seed).hasSize(SHARDS);
        for (UUID shard : HarnessSupport.shards(table)) { // round-robin: every shard holds rows
            assertThat(new ManifestStore(new LocalObjectStore(table), shard)
                            .readLatest()
                            .orElseThrow()
                            .sstables())
                    .as("shard %s, seed %d", shard, seed)
                    .isNotEmpty();
        }
        Map<Long, Long> expected = expected(n);
        try (TableReader reader = TableReader.open(table.toString())) {
            TableRows committed = reader.read(ReadMode.COMMITTED);
            assertThat(committed.columns())
                    .as("the generated row key is not the users'")
                    .containsExactly("id", "name");
            assertThat(committed.primaryKey()).isEmpty();
            assertThat(counts(committed.rows()))
                    .as("walsink's reader, seed %d", seed)
                    .isEqualTo(expected);
            assertThat(counts(reader.read(ReadMode.LATEST).rows()))
                    .as("LATEST, seed %d", seed)
                    .isEqualTo(expected);
        }
        assertThat(lanceCore(table)).as("lance-core, seed %d", seed).isEqualTo(expected);
        // The job's garbage collection ran beside the failures: fewer manifest versions remain than were written.
        long written = 0;
        long kept = 0;
        for (UUID shard : HarnessSupport.shards(table)) {
            List<Long> versions = new ManifestStore(new LocalObjectStore(table), shard).listVersions();
            written += versions.get(versions.size() - 1);
            kept += versions.size();
        }
        assertThat(kept).as("manifest versions kept of %d written", written).isLessThan(written);
        // The sink merged some generations beside the failures; a compactor run merges the rest,
        // each row an insert on the generated row key, after which the base table alone holds every row.
        long mergedBySink = mergedRows(table);
        assertThat(mergedBySink)
                .as("rows the sink's compaction merged, seed %d", seed)
                .isPositive();
        Compactor.compact(table.toString(), null, CompactorOptions.defaults());
        assertThat(mergedRows(table)).as("base table rows, seed %d", seed).isEqualTo(n);
        assertThat(lanceCore(table))
                .as("lance-core after compaction, seed %d", seed)
                .isEqualTo(expected);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(counts(reader.read(ReadMode.COMMITTED).rows()))
                    .as("walsink's reader after compaction, seed %d", seed)
                    .isEqualTo(expected);
        }
        assertThat(AppendEvents.lanceDb(table))
                .as("LanceDB's default read and countRows(), seed %d", seed)
                .isEqualTo(expected);
    }

    /** The table as lance-core's LSM scanner reads it: the base table, then the SSTables above its merge progress. */
    private static Map<Long, Long> lanceCore(Path table) {
        try (RootAllocator allocator = new RootAllocator()) {
            return counts(LanceOracle.scanPublished(
                    allocator,
                    table.toString(),
                    Map.of(),
                    new LocalObjectStore(table),
                    HarnessSupport.shards(table),
                    List.of("id", "name")));
        }
    }

    private static long mergedRows(Path table) {
        try (RootAllocator allocator = new RootAllocator()) {
            return LanceRows.scan(allocator, table.toString(), Map.of()).size();
        }
    }

    /**
     * An append table bucket-sharded on a column: each row is in the shard of its column value's
     * Lance bucket (the shard's manifest names the bucket), every row once.
     */
    @Test
    @Timeout(120)
    void aBucketColumnPlacesEachRowInTheShardOfItsBucket() throws Exception {
        Path table = dir.resolve("by-column");
        long n = 3_000;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(100);
        env.fromSequence(0, n - 1)
                .map(i -> (RowData) GenericRowData.of(i / 2, StringData.fromString("event-" + i / 2)))
                .returns(WalSinkMiniClusterTest.rowDataType())
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .createTableIfMissing(SHARDS)
                        .bucketColumn("id")
                        .build());
        env.execute("walsink append table by column");

        RowDataBucketHasher hasher = new RowDataBucketHasher(
                ROW, new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), SHARDS);
        Set<Integer> bucketsSeen = new TreeSet<>();
        try (RootAllocator allocator = new RootAllocator()) {
            for (UUID shard : HarnessSupport.shards(table)) {
                ShardManifest manifest = new ManifestStore(new LocalObjectStore(table), shard)
                        .readLatest()
                        .orElseThrow();
                int bucket = ShardReader.bucketOf(manifest);
                bucketsSeen.add(bucket);
                for (SsTable t : manifest.sstables()) {
                    for (Map<String, Object> row : LanceRows.scan(
                            allocator, TableLocation.ssTableUri(table.toString(), shard, t.path()), Map.of())) {
                        long id = (Long) row.get("id");
                        assertThat(hasher.bucketOf(GenericRowData.of(id, null)))
                                .as("row %d in the shard of bucket %d", id, bucket)
                                .isEqualTo(bucket);
                    }
                }
            }
        }
        assertThat(bucketsSeen).containsExactly(0, 1, 2, 3);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(counts(reader.read(ReadMode.COMMITTED).rows())).isEqualTo(expected(n));
        }
        // A bucket-column append table has no generated row key: not merged, refused with nothing written.
        long baseVersion = BaseVersions.latest(table.toString());
        assertThatThrownBy(() -> Compactor.compact(table.toString(), null, CompactorOptions.defaults()))
                .isInstanceOf(MissingPrimaryKeyException.class)
                .hasMessageContaining("is an append table without walsink's row key");
        assertThat(BaseVersions.latest(table.toString())).isEqualTo(baseVersion);
    }

    /** Rows {@code i / 2}: every id twice, as identical rows. */
    private void run(Path table, long n, long seed, long... failAt) throws Exception {
        FailoverTestSupport.reset(6);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FailoverTestSupport.restarting());
        env.setParallelism(2);
        env.enableCheckpointing(150);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, n, RateLimiterStrategy.perSecond(n / 2.5), Types.LONG);
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table.toString())
                .createTableIfMissing(SHARDS)
                .flushInterval(Duration.ofMillis(20))
                .memtableMaxRows(1_500)
                .garbageCollection(true, Duration.ofSeconds(2))
                .compaction(true)
                .maintenanceInterval(Duration.ZERO)
                .storeWrapper(FailoverTestSupport.flaky(0.02, seed))
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "event numbers")
                .map(new FailoverTestSupport.FailOnceAt(failAt))
                .map(i -> (RowData) GenericRowData.of(i / 2, StringData.fromString("event-" + i / 2)))
                .returns(WalSinkMiniClusterTest.rowDataType())
                .sinkTo(sink)
                .uid("walsink-append");
        env.execute("walsink append table");
    }

    private static Map<Long, Long> expected(long n) {
        Map<Long, Long> counts = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            counts.merge(i / 2, 1L, Long::sum);
        }
        return counts;
    }

    /** How often each id occurs, checking each row's name belongs to its id. */
    static Map<Long, Long> counts(Collection<Map<String, Object>> rows) {
        return AppendEvents.of(rows);
    }
}
