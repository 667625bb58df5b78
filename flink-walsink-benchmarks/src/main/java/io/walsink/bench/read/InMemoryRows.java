package io.walsink.bench.read;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
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

/**
 * Rows {@code (id BIGINT, name STRING)} that cost next to nothing to read: a FLIP-27 source (the
 * source framework walsink's scan uses) handing out a small pool of prebuilt {@link RowData} in
 * turn, names as long as {@link LookupTable}'s. What a SQL job over it costs is the job's own
 * cost, the ceiling of any source in that job.
 */
final class InMemoryRows {
    private static final int POOL = 1024;

    private InMemoryRows() {}

    static DataStream<RowData> stream(StreamExecutionEnvironment env, long rows) {
        RowType type =
                RowType.of(new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE}, new String[] {"id", "name"});
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(new Pool(rows), rows, InternalTypeInfo.of(type));
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "in-memory rows");
    }

    /** Row {@code i} is pool row {@code i mod POOL}, built when the reader opens. */
    private static final class Pool implements GeneratorFunction<Long, RowData> {
        private final long rows;
        private transient RowData[] pool;

        Pool(long rows) {
            this.rows = rows;
        }

        @Override
        public void open(SourceReaderContext context) {
            pool = new RowData[POOL];
            for (int i = 0; i < POOL; i++) {
                long id = Math.max(0, rows - 1 - i);
                pool[i] = GenericRowData.of(id, StringData.fromString(LookupTable.nameOf(id, 0)));
            }
        }

        @Override
        public RowData map(Long index) {
            return pool[(int) (index % POOL)];
        }
    }
}
