package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad configuration and bad input fail with a message naming the problem, before a shard is claimed. */
class WalSinkBuilderTest {
    @TempDir
    Path dir;

    private WalSinkBuilder<RowData> builder() {
        return WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(4);
    }

    @Test
    void zeroFlushIntervalIsRefused() {
        assertThatThrownBy(() -> builder().flushInterval(Duration.ZERO).build())
                .hasMessageContaining("sink.flush-interval");
        assertThat(dir.resolve("table")).doesNotExist();
    }

    @Test
    void bucketCountOutOfRangeIsRefused() {
        assertThatThrownBy(() -> builder().createTableIfMissing(0).build()).hasMessageContaining("0");
        assertThatThrownBy(() -> builder().createTableIfMissing(1025).build()).hasMessageContaining("1025");
    }

    @Test
    void primaryKeyNotInTheSchemaIsNamed() {
        assertThatThrownBy(() -> builder().primaryKey("uid").build()).hasMessageContaining("uid");
    }

    @Test
    void pathIsRequiredAndMustParse() {
        assertThatThrownBy(() -> WalSink.forRowData(ROW).build()).hasMessageContaining("path is required");
        assertThatThrownBy(() -> WalSink.forRowData(ROW)
                        .path("s3://")
                        .primaryKey("id")
                        .createTableIfMissing(2)
                        .build())
                .hasMessageContaining("s3://");
    }

    @Test
    void rowTypeThatDoesNotFitTheTableIsNamed() {
        builder().build(); // creates the table (id BIGINT, name STRING)
        RowType other =
                RowType.of(new LogicalType[] {new BigIntType(false), new IntType()}, new String[] {"id", "name"});
        assertThatThrownBy(() -> WalSink.forRowData(other)
                        .path(dir.resolve("table").toString())
                        .build())
                .hasMessageContaining("name");
        RowType extra = RowType.of(
                new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType()},
                new String[] {"id", "name", "extra"});
        assertThatThrownBy(() -> WalSink.forRowData(extra)
                        .path(dir.resolve("table").toString())
                        .build())
                .hasMessageContaining("extra");
        // A nullable column the rows do not declare (added after they were) is written as null.
        RowType missing = RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"});
        WalSink.forRowData(missing).path(dir.resolve("table").toString()).build();
    }

    @Test
    void keyOfAnExistingTableMustMatch() {
        builder().build();
        assertThatThrownBy(() -> WalSink.forRowData(ROW)
                        .path(dir.resolve("table").toString())
                        .primaryKey("name")
                        .build())
                .hasMessageContaining("[name]")
                .hasMessageContaining("[id]");
    }

    @Test
    void negativeBudgetsNameTheirOptions() {
        assertThatThrownBy(() -> builder().memtableMaxRows(0).build()).hasMessageContaining("sink.memtable.max-rows");
        assertThatThrownBy(() -> builder().maxUnflushedBytes(10).build())
                .hasMessageContaining("sink.max-unflushed-bytes");
        assertThatThrownBy(() -> builder().parallelism(0).build()).hasMessageContaining("sink.parallelism");
    }

    @Test
    void aNullKeyFailsBeforeTheShardIsClaimed() throws Exception {
        WalSink<RowData> sink = builder().build();
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(sink.operatorFactory(), row -> 0, Types.INT, 128, 1, 0)) {
            h.open();
            GenericRowData row = GenericRowData.of(null, StringData.fromString("x"));
            assertThatThrownBy(() -> h.processElement(row, 0))
                    .hasMessageContaining("id")
                    .hasMessageContaining("null");
            assertThat(Files.exists(dir.resolve("table").resolve("_mem_wal"))).isFalse();
        }
    }
}
