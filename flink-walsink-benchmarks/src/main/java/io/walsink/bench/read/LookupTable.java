package io.walsink.bench.read;

import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.storage.S3Options;
import java.nio.file.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The table {@link LookupReport} probes, written through the SQL connector: keys {@code [0, rows)}
 * named {@code name-<id>}, compacted into the Lance base table, then the first {@code updates}
 * keys renamed {@code upd-<id>} into several unmerged SSTables per shard (compaction off), so a
 * lookup reads the base table and SSTables above it. Every value follows from the key.
 */
final class LookupTable {
    private LookupTable() {}

    /**
     * Job settings: one subtask, no checkpoints. Without checkpointing the sink publishes each
     * SSTable when it is written and everything at the end of input; the datagen sequence source
     * would also put every number it has yet to emit into each checkpoint (8 MB for 1 M keys,
     * over the JobManager's in-memory checkpoint limit).
     */
    static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        return env;
    }

    /** @return the generations the compaction merged into the base table */
    static int build(Path path, long rows, int buckets, long updates, int sstablesPerShard) throws Exception {
        StreamTableEnvironment sql = StreamTableEnvironment.create(env());
        sql.executeSql("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + path + "', 'buckets' = '" + buckets + "', 'sink.compaction.enabled' ="
                + " 'false', 'sink.gc.enabled' = 'false')");
        // memtables of at most 1 M rows: the memtable's key index is on the heap
        write(sql, "name-", rows, Math.min(rows, 1_000_000));
        CompactionResult merged = Compactor.compact(path.toString(), S3Options.defaults(), CompactorOptions.defaults());
        long perSsTable = Math.max(1, updates / buckets / sstablesPerShard);
        write(sql, "upd-", updates, perSsTable);
        return merged.mergedGenerations();
    }

    /** What a probe of {@code id} must find. */
    static String nameOf(long id, long updates) {
        return (id < updates ? "upd-" : "name-") + id;
    }

    private static void write(StreamTableEnvironment sql, String prefix, long keys, long memtableRows)
            throws Exception {
        String source = "gen_" + prefix.replace("-", "");
        // datagen emits 10,000 rows/s unless told otherwise
        sql.executeSql("CREATE TEMPORARY TABLE " + source + " (id BIGINT) WITH ('connector' = 'datagen',"
                + " 'rows-per-second' = '1000000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '"
                + (keys - 1) + "')");
        sql.executeSql("INSERT INTO t /*+ OPTIONS('sink.memtable.max-rows' = '" + memtableRows + "') */ SELECT id,"
                        + " CONCAT('" + prefix + "', CAST(id AS STRING)) FROM " + source)
                .await();
    }
}
