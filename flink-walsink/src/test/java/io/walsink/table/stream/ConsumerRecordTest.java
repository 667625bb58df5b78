package io.walsink.table.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.table.scan.ScanHarness;
import io.walsink.table.scan.TableScanRestoreTest;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A continuous read with a consumer id ({@code scan.consumer-id}) records its progress at every
 * completed checkpoint, and garbage collection keeps what that record says the read still needs
 * past the retention, until the record expires. The collector runs on a settable clock hours or
 * days after the writes, so everything is older than its retention.
 */
class ConsumerRecordTest {
    private static final int BUCKETS = 3;
    private static final String CONSUMER = "etl-1";
    private static final Duration RETENTION = Duration.ofHours(1);

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final SettableClock readerClock = new SettableClock(Instant.now());

    private String uri;
    private LocalObjectStore store;
    private BucketShardWriters writers;
    private ChangeModel changes;

    @BeforeEach
    void table() {
        long seed = System.nanoTime();
        System.out.println("ConsumerRecordTest seed " + seed);
        uri = dir.resolve("t").toString();
        LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        writers = new BucketShardWriters(uri, allocator);
        changes = new ChangeModel(writers, new Random(seed), 30);
    }

    @AfterEach
    void close() {
        writers.close();
    }

    @Test
    void aLiveConsumerRecordKeepsWhatItsReadNeedsPastTheRetention() throws Exception {
        ChangeHarness harness = harness();
        List<String> emitted = new ArrayList<>();
        List<ChangeSplit> state = readAndCompleteACheckpoint(harness, emitted);
        behindTheRead();

        collectAt(readerClock.instant().plus(RETENTION.multipliedBy(2)));

        assertThat(ConsumerRecords.readAll(store)).as("a live record stays").hasSize(BUCKETS);
        try (SourceReader<RowData, ChangeSplit> reader = reader(harness, state)) {
            emitted.addAll(ChangeHarness.drain(reader));
        }
        changes.assertEmitted(emitted);
    }

    @Test
    void anExpiredRecordIsRemovedAndTheReadBehindItFailsNamingTheConsumer() throws Exception {
        ChangeHarness harness = harness();
        List<ChangeSplit> state = readAndCompleteACheckpoint(harness, new ArrayList<>());
        behindTheRead();

        collectAt(readerClock.instant().plus(GarbageCollector.DEFAULT_CONSUMER_EXPIRATION.plusHours(1)));

        assertThat(ConsumerRecords.readAll(store))
                .as("expired records are removed")
                .isEmpty();
        try (SourceReader<RowData, ChangeSplit> reader = reader(harness, state)) {
            assertThatThrownBy(() -> ChangeHarness.drain(reader))
                    .isInstanceOf(GarbageCollectedException.class)
                    .hasMessageContaining("consumer '" + CONSUMER + "'")
                    .hasMessageContaining("sink.gc.consumer-expiration")
                    .hasMessageContaining("is missing")
                    .hasMessageContaining("no record");
        }
    }

    @Test
    void aRecordIsWrittenOnlyWhenItsCheckpointCompletes() throws Exception {
        changes.writeAndPublish(1);
        ChangeHarness harness = harness();
        try (SourceReader<RowData, ChangeSplit> reader =
                reader(harness, harness.source.stream().splits())) {
            ChangeHarness.drain(reader);
            List<ChangeSplit> first = reader.snapshotState(1);
            assertThat(ConsumerRecords.readAll(store))
                    .as("before checkpoint 1 completes")
                    .isEmpty();
            reader.notifyCheckpointComplete(1);
            Instant firstWritten = readerClock.instant();
            assertRecordsAre(first, firstWritten);

            changes.writeAndPublish(2);
            ChangeHarness.drain(reader);
            List<ChangeSplit> second = reader.snapshotState(2);
            assertThat(positions(second)).as("the read moved on").isNotEqualTo(positions(first));
            readerClock.advance(Duration.ofMinutes(1));
            assertRecordsAre(first, firstWritten);
            reader.notifyCheckpointAborted(2);
            assertRecordsAre(first, firstWritten);

            List<ChangeSplit> third = reader.snapshotState(3);
            readerClock.advance(Duration.ofMinutes(1));
            reader.notifyCheckpointComplete(3);
            assertRecordsAre(third, readerClock.instant());
            assertThat(positions(third)).isEqualTo(positions(second));
        }
    }

    /**
     * The read emits the snapshot, then finds generations already merged and dropped from the
     * latest manifests, and checkpoint 1 is taken after the first row of them and completes: only
     * their SSTable folders (and the versions that published them) hold the rest.
     */
    private List<ChangeSplit> readAndCompleteACheckpoint(ChangeHarness harness, List<String> emitted) throws Exception {
        changes.writeAndPublish(1);
        changes.snapshotIsExpected();
        try (SourceReader<RowData, ChangeSplit> reader =
                reader(harness, harness.source.stream().splits())) {
            emitted.addAll(ChangeHarness.drain(reader));
            behindTheRead();
            emitted.addAll(ChangeHarness.poll(reader, 1));
            List<ChangeSplit> state = harness.checkpoint(reader, 1);
            assertThat(state.stream().flatMap(s -> s.shards().stream()))
                    .as("generations found and not yet emitted")
                    .anyMatch(c -> !c.queued().isEmpty());
            reader.notifyCheckpointComplete(1);
            return state;
        }
    }

    /**
     * The writers publish more while the read is down; compaction merges it and the writers drop
     * it from their manifests, so only the manifest versions that published it and its SSTable
     * folders still hold the changes.
     */
    private void behindTheRead() {
        changes.writeAndPublish(3);
        new TableCompaction(new TableLocation(store, uri, Map.of()), allocator, CompactorOptions.defaults()).run();
        writers.reopen();
        for (int b = 0; b < BUCKETS; b++) {
            assertThat(new ManifestStore(store, ShardIds.bucket(b))
                            .readLatest()
                            .orElseThrow()
                            .sstables())
                    .isEmpty();
        }
    }

    private void collectAt(Instant at) {
        new GarbageCollector(
                        store, GarbageCollector.Options.retaining(RETENTION).keepingNewest(1), new SettableClock(at))
                .collect();
    }

    private void assertRecordsAre(List<ChangeSplit> state, Instant written) {
        List<ConsumerRecord> records = ConsumerRecords.readAll(store).stream()
                .map(ConsumerRecords.Stored::record)
                .sorted(Comparator.comparing(ConsumerRecord::split))
                .toList();
        assertThat(records).extracting(ConsumerRecord::writtenAt).containsOnly(written);
        assertThat(records).extracting(ConsumerRecord::baseVersion).containsOnly(OptionalLong.empty());
        assertThat(records.stream().map(ConsumerRecord::shards).toList()).isEqualTo(positions(state));
    }

    /** What each split's cursors say it needs, split by split in name order. */
    private static List<List<ConsumerRecord.Position>> positions(List<ChangeSplit> state) {
        return state.stream()
                .sorted(Comparator.comparing(ChangeSplit::splitId))
                .map(s -> s.shards().stream()
                        .map(c -> new ConsumerRecord.Position(c.shardId(), c.manifestVersion(), c.emittedThrough()))
                        .toList())
                .toList();
    }

    private ChangeHarness harness() {
        return new ChangeHarness(new ChangeStream(
                TableScanRestoreTest.scan(uri, ReadMode.COMMITTED),
                StartupMode.INITIAL,
                Duration.ofMillis(5),
                true,
                CONSUMER));
    }

    private SourceReader<RowData, ChangeSplit> reader(ChangeHarness harness, List<ChangeSplit> splits) {
        ChangeReader reader = new ChangeReader(new ScanHarness.ReaderContext(), harness.source.stream(), readerClock);
        reader.start();
        reader.addSplits(splits);
        return reader;
    }
}
