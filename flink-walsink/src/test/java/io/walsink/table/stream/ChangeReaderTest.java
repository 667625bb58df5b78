package io.walsink.table.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.table.scan.ScanHarness;
import io.walsink.table.scan.TableScanRestoreTest;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A continuous read of a bucket-sharded table whose shards publish generations between polls:
 * what it emits, per key, is exactly the key's newest change of every generation in generation
 * order (after the snapshot's row, with startup mode initial), across restores from checkpoints
 * taken anywhere, and across compaction merging generations the reader has not read yet.
 */
class ChangeReaderTest {
    private static final int BUCKETS = 3;
    private static final int KEYS = 30;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private String uri;
    private Random random;
    private BucketShardWriters writers;
    private ChangeModel changes;

    @BeforeEach
    void table() {
        long seed = System.nanoTime();
        System.out.println("ChangeReaderTest seed " + seed);
        random = new Random(seed);
        uri = dir.resolve("t").toString();
        LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        writers = new BucketShardWriters(uri, allocator);
        changes = new ChangeModel(writers, random, KEYS);
    }

    @AfterEach
    void close() {
        writers.close();
    }

    @Test
    void emitsTheSnapshotThenEveryGenerationAsAnUpsertChangelog() throws Exception {
        writeAndPublish(2);
        ChangeHarness harness = harness(StartupMode.INITIAL);
        List<String> emitted = new ArrayList<>();
        snapshotIsExpected();
        try (SourceReader<RowData, ChangeSplit> reader =
                harness.reader(harness.source.stream().splits())) {
            for (int i = 0; i < 4; i++) {
                emitted.addAll(ChangeHarness.drain(reader));
                writeAndPublish(1 + random.nextInt(2));
            }
            emitted.addAll(ChangeHarness.drain(reader));
        }
        assertEmitted(emitted);
        assertThat(emitted).as("deletes come as -D").anyMatch(c -> c.startsWith("-D"));
        assertThat(emitted).as("the snapshot comes as +I").anyMatch(c -> c.startsWith("+I"));
    }

    @Test
    void startupModeLatestEmitsOnlyGenerationsPublishedAfterTheStart() throws Exception {
        writeAndPublish(2);
        changes.nothingIsExpected(); // published before the start: none of it is emitted
        ChangeHarness harness = harness(StartupMode.LATEST);
        List<ChangeSplit> splits = harness.source.stream().splits();
        writeAndPublish(2);
        try (SourceReader<RowData, ChangeSplit> reader = harness.reader(splits)) {
            assertEmitted(ChangeHarness.drain(reader));
        }
    }

    @Test
    void lagIsReportedPerReaderAndPerShardAsGenerationsFoundAndNotYetEmitted() throws Exception {
        writeAndPublish(1);
        ChangeHarness harness = harness(StartupMode.LATEST);
        List<ChangeSplit> splits = harness.source.stream().splits();
        writeAndPublish(2);
        RecordingReaderMetrics metrics = new RecordingReaderMetrics();
        try (SourceReader<RowData, ChangeSplit> reader = harness.reader(splits, metrics)) {
            assertThat(metrics.value("generationsBehind"))
                    .as("before the first look")
                    .isZero();
            reader.pollNext(new ScanHarness.RecordingOutput()); // the first poll looks at the manifests
            long behind = metrics.value("generationsBehind");
            long perShard = 0;
            for (int b = 0; b < BUCKETS; b++) {
                perShard += metrics.value("shard." + ShardIds.bucket(b) + ".generationsBehind");
            }
            assertThat(behind).as("two rounds published").isBetween(2L, 2L * BUCKETS);
            assertThat(perShard).isEqualTo(behind);
            ChangeHarness.drain(reader);
            assertThat(metrics.value("generationsBehind"))
                    .as("after everything was emitted")
                    .isZero();
        }
    }

    @Test
    void lagInTimeIsTheAgeOfTheOldestGenerationFoundAndNotYetEmitted() throws Exception {
        writeAndPublish(1);
        ChangeHarness harness = harness(StartupMode.LATEST);
        List<ChangeSplit> splits = harness.source.stream().splits();
        SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
        RecordingReaderMetrics metrics = new RecordingReaderMetrics();
        try (ChangeReader reader =
                new ChangeReader(new ScanHarness.ReaderContext(metrics), harness.source.stream(), clock)) {
            reader.start();
            reader.addSplits(splits);
            writeAndPublish(2);
            reader.pollNext(new ScanHarness.RecordingOutput()); // the first look finds them, emits nothing
            assertThat(metrics.value("generationsBehind")).isPositive();
            assertThat(metrics.value("oldestPendingGenerationMs"))
                    .as("found just now")
                    .isZero();
            clock.advance(Duration.ofSeconds(7));
            assertThat(metrics.value("oldestPendingGenerationMs")).isEqualTo(7_000);
            ChangeHarness.drain(reader);
            assertThat(metrics.value("oldestPendingGenerationMs"))
                    .as("everything emitted")
                    .isZero();
        }
    }

    @Test
    void aReaderOfSomeBucketsNeverWalksTheShardsOfTheOthers() throws Exception {
        writeAndPublish(3);
        ChangeHarness harness = harness(StartupMode.LATEST);
        List<ChangeSplit> splits = harness.source.stream().splits();
        ChangeSplit mine = splits.get(0);
        // the other shards' first manifest versions collected: walking them from the start would fail
        for (int b = 0; b < BUCKETS; b++) {
            if (b != mine.bucket()) {
                Files.delete(Path.of(uri)
                        .resolve(new ManifestStore(new LocalObjectStore(Path.of(uri)), ShardIds.bucket(b))
                                .versionKey(1)));
            }
        }
        changes.nothingIsExpected();
        writeAndPublish(2);
        try (SourceReader<RowData, ChangeSplit> reader = harness.reader(List.of(mine))) {
            List<String> emitted = ChangeHarness.drain(reader);
            assertThat(emitted).isNotEmpty();
            Map<Long, List<String>> mineExpected = new TreeMap<>(changes.expected);
            mineExpected
                    .keySet()
                    .removeIf(id -> BucketHash.bucketOf(BucketHash.hashLong(id), BUCKETS) != mine.bucket());
            Map<Long, List<String>> perKey = new TreeMap<>();
            emitted.forEach(
                    c -> perKey.computeIfAbsent(Long.parseLong(c.substring(3).split("=")[0]), k -> new ArrayList<>())
                            .add(c));
            assertThat(perKey).isEqualTo(mineExpected);
        }
    }

    @Test
    void aReaderRestoredFromACheckpointTakenAnywhereContinuesExactly() throws Exception {
        writeAndPublish(2);
        ChangeHarness harness = harness(StartupMode.INITIAL);
        snapshotIsExpected();
        List<ChangeSplit> state = harness.source.stream().splits();
        List<String> emitted = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            writeAndPublish(1 + random.nextInt(2));
            int owed = changes.expectedChanges() - emitted.size();
            int cut = random.nextInt(owed + 1); // inside the snapshot, a generation, or at a boundary
            try (SourceReader<RowData, ChangeSplit> reader = harness.reader(state)) {
                emitted.addAll(ChangeHarness.poll(reader, cut));
                state = harness.checkpoint(reader, attempt);
                // rows emitted after the checkpoint are lost with the failed attempt
                ChangeHarness.poll(reader, random.nextInt(owed - cut + 1));
            }
        }
        try (SourceReader<RowData, ChangeSplit> reader = harness.reader(state)) {
            emitted.addAll(ChangeHarness.drain(reader));
        }
        assertEmitted(emitted);
    }

    @Test
    void generationsMergedIntoTheBaseAndDroppedFromTheManifestAreStillRead() throws Exception {
        writeAndPublish(1);
        ChangeHarness harness = harness(StartupMode.INITIAL);
        snapshotIsExpected();
        List<String> emitted = new ArrayList<>();
        try (SourceReader<RowData, ChangeSplit> reader =
                harness.reader(harness.source.stream().splits())) {
            emitted.addAll(ChangeHarness.drain(reader));
            writeAndPublish(3);
            mergeAndDrop();
            emitted.addAll(ChangeHarness.drain(reader));
        }
        assertEmitted(emitted);
    }

    @Test
    void aGenerationWhoseFolderIsGoneFailsNamingTheShardTheGenerationAndTheRetention() throws Exception {
        writeAndPublish(1);
        ChangeHarness harness = harness(StartupMode.LATEST);
        try (SourceReader<RowData, ChangeSplit> reader =
                harness.reader(harness.source.stream().splits())) {
            ChangeHarness.drain(reader);
            writeAndPublish(2);
            // a generation the reader has not read: the newest one listed by some shard
            UUID shard = null;
            long generation = 0;
            for (int b = 0; b < BUCKETS && shard == null; b++) {
                var listed = new ManifestStore(new LocalObjectStore(Path.of(uri)), ShardIds.bucket(b))
                        .readLatest()
                        .orElseThrow()
                        .sstables();
                if (!listed.isEmpty()) {
                    shard = ShardIds.bucket(b);
                    generation = listed.get(listed.size() - 1).generation();
                }
            }
            assertThat(shard).as("a shard published a generation").isNotNull();
            mergeAndDrop();
            Path folder = ssTableFolder(shard, generation);
            try (Stream<Path> files = Files.walk(folder)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            assertThatThrownBy(() -> ChangeHarness.drain(reader))
                    .isInstanceOf(GarbageCollectedException.class)
                    .hasMessageContaining("generation " + generation + " of shard " + shard)
                    .hasMessageContaining("sink.gc.retention");
        }
    }

    private ChangeHarness harness(StartupMode startup) {
        return new ChangeHarness(new ChangeStream(
                TableScanRestoreTest.scan(uri, ReadMode.COMMITTED), startup, Duration.ofMillis(5), true));
    }

    private void writeAndPublish(int generations) {
        changes.writeAndPublish(generations);
    }

    private void snapshotIsExpected() {
        changes.snapshotIsExpected();
    }

    private void assertEmitted(List<String> emitted) {
        changes.assertEmitted(emitted);
    }

    /** The compactor merges every published generation; the writers' claims drop them from their manifests. */
    private void mergeAndDrop() {
        int merged = new TableCompaction(
                        new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()),
                        allocator,
                        CompactorOptions.defaults())
                .run()
                .mergedGenerations();
        assertThat(merged).as("generations merged").isPositive();
        writers.reopen();
        for (int b = 0; b < BUCKETS; b++) {
            assertThat(new ManifestStore(new LocalObjectStore(Path.of(uri)), ShardIds.bucket(b))
                            .readLatest()
                            .orElseThrow()
                            .sstables())
                    .as("bucket %s's manifest after the drop", b)
                    .isEmpty();
        }
    }

    private Path ssTableFolder(UUID shard, long generation) throws Exception {
        try (Stream<Path> paths = Files.walk(Path.of(uri))) {
            return paths.filter(p -> p.toString().contains(shard.toString()))
                    .filter(p -> p.getFileName().toString().endsWith("_gen_" + generation))
                    .filter(Files::isDirectory)
                    .findFirst()
                    .orElseThrow();
        }
    }
}
