package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.StorageLocation;
import io.walsink.testing.S3MockServer;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A whole job writing to an S3-protocol server (s3mock): WAL entries and manifests through our S3
 * client, SSTables through lance-core with storage options derived from the same S3 settings.
 */
class WalSinkS3Test {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @Test
    void boundedJobOnS3LeavesTheModelsTable() throws Exception {
        String path = "s3://" + S3MockServer.BUCKET + "/jobs-" + UUID.randomUUID() + "/events";
        ChangeGenerator changes = new ChangeGenerator(300, 6);
        long n = 6_000;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        env.fromSequence(0, n - 1)
                .setParallelism(1)
                .map(changes::change)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(path)
                        .primaryKey("id")
                        .createTableIfMissing(2)
                        .s3(S3.options())
                        .flushInterval(Duration.ofMillis(50))
                        .memtableMaxRows(1_500)
                        .build())
                .uid("walsink-s3");
        env.execute("walsink on s3");

        Map<Long, String> table = new TreeMap<>();
        Map<String, String> lance = LanceStorageOptions.of(StorageLocation.parse(path), S3.options());
        try (ObjectStore store = ObjectStores.open(path, S3.options());
                RootAllocator allocator = new RootAllocator()) {
            new SnapshotReader(new TableLocation(store, path, lance), WalSchemaProfile.SPEC, allocator)
                    .read(ReadMode.COMMITTED)
                    .rows()
                    .forEach(r -> table.put((Long) r.get("id"), (String) r.get("name")));
        }
        assertThat(table).isEqualTo(changes.model(n));
    }
}
