package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.TableLocation;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Whole jobs on a real Flink MiniCluster: a bounded job leaves exactly the model's table. */
class WalSinkMiniClusterTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void boundedJobWritesTheModelsTable() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(500, 9);
        long n = 20_000;
        Path table = dir.resolve("table");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromSequence(0, n - 1)
                .setParallelism(1) // one source subtask keeps per-key order
                .map(changes::change)
                .returns(rowDataType())
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .primaryKey("id")
                        .createTableIfMissing(4)
                        .flushInterval(Duration.ofMillis(50))
                        .memtableMaxRows(3_000)
                        .build());
        env.execute("walsink bounded");

        assertThat(read(table, ReadMode.COMMITTED)).isEqualTo(changes.model(n));
        assertThat(read(table, ReadMode.LATEST)).isEqualTo(changes.model(n));
    }

    @Test
    void appendOnlyTableKeepsEveryRow() throws Exception {
        Path table = dir.resolve("log");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromSequence(0, 2_999)
                .map(i -> (RowData) org.apache.flink.table.data.GenericRowData.of(
                        i % 100, org.apache.flink.table.data.StringData.fromString("event-" + i)))
                .returns(rowDataType())
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .createTableIfMissing(1)
                        .memtableMaxRows(1_000)
                        .build());
        env.execute("walsink append-only");

        try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
            var rows = new io.walsink.read.snapshot.SnapshotReader(
                            new TableLocation(
                                    new io.walsink.storage.LocalObjectStore(table),
                                    table.toString(),
                                    java.util.Map.of()),
                            io.walsink.format.wal.WalSchemaProfile.SPEC,
                            allocator)
                    .read(ReadMode.COMMITTED)
                    .rows();
            assertThat(rows).hasSize(3_000);
            assertThat(rows.stream().map(r -> r.get("name")).distinct()).hasSize(3_000);
        }
    }

    @Test
    void anAppendTablesBucketColumnMustBeOneOfItsColumns() {
        assertThatThrownBy(() -> WalSink.forRowData(ROW)
                        .path(dir.resolve("log").toString())
                        .createTableIfMissing(4)
                        .bucketColumn("missing")
                        .build())
                .hasMessageContaining("bucket column 'missing' is not a column");
        assertThat(dir.resolve("log")).doesNotExist();
    }

    @Test
    void aMissingTableFailsWhileTheJobIsBuilt() {
        assertThatThrownBy(() -> WalSink.forRowData(ROW)
                        .path(dir.resolve("nothing").toString())
                        .build())
                .hasMessageContaining("no Lance table at")
                .hasMessageContaining("createTableIfMissing");
    }

    static TypeInformation<RowData> rowDataType() {
        return InternalTypeInfo.of(ROW);
    }
}
