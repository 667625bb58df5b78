package io.walsink.flink.internal;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.WalSink;
import io.walsink.flink.WalSinkBuilder;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/** The memory tests' job: {@link ChangeGenerator}'s rows into a four-bucket table. */
final class MemoryJobs {
    static final RowType ROW =
            RowType.of(new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "name"});

    /** Appended to each value by {@link #padded}: about 520 bytes per row instead of about 20. */
    static final String PADDING = "x".repeat(500);

    private MemoryJobs() {}

    /** The row with {@link #PADDING} after its value (deletes, which have none, as they are). */
    static RowData padded(RowData row) {
        if (row.isNullAt(1)) {
            return row;
        }
        GenericRowData padded = GenericRowData.of(
                row.getLong(0), StringData.fromString(row.getString(1).toString() + PADDING));
        padded.setRowKind(row.getRowKind());
        return padded;
    }

    static WalSinkBuilder<RowData> sink(Path table) {
        return WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(50));
    }

    /** The generator's first {@code n} changes, in order, as a stream of one source subtask. */
    static DataStream<RowData> changes(StreamExecutionEnvironment env, ChangeGenerator changes, long n) {
        return env.fromSequence(0, n - 1)
                .setParallelism(1)
                .map(changes::change)
                .returns(InternalTypeInfo.of(ROW))
                .setParallelism(1);
    }

    static Map<Long, String> read(Path table) {
        Map<Long, String> rows = new TreeMap<>();
        try (RootAllocator allocator = new RootAllocator()) {
            new SnapshotReader(
                            new TableLocation(new LocalObjectStore(table), table.toString(), Map.of()),
                            WalSchemaProfile.SPEC,
                            allocator)
                    .read(ReadMode.LATEST)
                    .rows()
                    .forEach(r -> rows.put((Long) r.get("id"), (String) r.get("name")));
        }
        return rows;
    }
}
