package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL SELECT on a MiniCluster reads the snapshot its enumerator pinned, while the table changes
 * under it: the change lands, through the shard engine, in every bucket's shard after the first
 * split was read and before the others are (one reader reads the splits one after another).
 */
class TableScanSqlSnapshotTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    /** The table {@link ChangeTheTableOnFirstRow} changes; the job runs in this JVM. */
    private static volatile String changing;

    private static final AtomicBoolean CHANGED = new AtomicBoolean();

    @TempDir
    Path dir;

    @Test
    void aSelectEmitsThePinnedSnapshotWhileTheTableChanges() throws Exception {
        Path path = dir.resolve("t");
        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", "200ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + path + "', 'buckets' = '4', 'scan.startup-mode' = 'snapshot')");
        sql.executeSql("INSERT INTO t VALUES "
                        + LongStream.rangeClosed(1, 40)
                                .mapToObj(i -> "(" + i + ", 'v" + i + "')")
                                .collect(Collectors.joining(", ")))
                .await();
        List<String> atPin = read(path);
        assertThat(atPin).hasSize(40);

        changing = path.toString();
        CHANGED.set(false);
        List<String> emitted = new ArrayList<>();
        try (CloseableIterator<String> rows = sql.toDataStream(sql.sqlQuery("SELECT id, name FROM t"))
                .map(new ChangeTheTableOnFirstRow())
                .executeAndCollect()) {
            rows.forEachRemaining(emitted::add);
        }

        assertThat(CHANGED).as("the table changed during the scan").isTrue();
        assertThat(read(path)).as("the table after the change").doesNotContainAnyElementsOf(atPin);
        assertThat(emitted).containsExactlyInAnyOrderElementsOf(atPin);
    }

    private static List<String> read(Path path) {
        try (RootAllocator allocator = new RootAllocator()) {
            return new SnapshotReader(
                            new TableLocation(new LocalObjectStore(path), path.toString(), Map.of()),
                            WalSchemaProfile.SPEC,
                            allocator)
                    .read(ReadMode.COMMITTED).rows().stream()
                            .map(r -> r.get("id") + "=" + r.get("name"))
                            .toList();
        }
    }

    /**
     * Passes rows on as "id=name"; on the first, deletes every key of the table and writes new
     * ones (published, so a committed read sees them) before the reader opens its next split.
     */
    private static final class ChangeTheTableOnFirstRow implements MapFunction<Row, String> {
        @Override
        public String map(Row row) {
            if (CHANGED.compareAndSet(false, true)) {
                try (RootAllocator allocator = new RootAllocator();
                        BucketShardWriters writers = new BucketShardWriters(changing, allocator)) {
                    for (long id = 1; id <= 40; id++) {
                        writers.write(id, "gone", true);
                    }
                    for (long id = 41; id <= 50; id++) {
                        writers.write(id, "new", false);
                    }
                    writers.publish();
                }
            }
            return row.getField(0) + "=" + row.getField(1);
        }
    }
}
