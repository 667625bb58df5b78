package io.walsink.table;

import static io.walsink.table.WalSinkSqlLookupJoinTest.FULL_RELOAD;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FULL-cached lookup join follows the table through its reloads: probes answered from the load
 * at the start see the table as it was then; after an update, a delete and an insert are
 * published, a periodic reload brings all three in. Probes are let through one round at a time
 * by the test, so it can look at each answer before asking again.
 */
class WalSinkSqlFullCacheTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final long[] KEYS = {7, 8, 9};
    /** The most the test waits for a reload: a bound for a failing run, not a measurement. */
    private static final Duration RELOAD_DEADLINE = Duration.ofMinutes(2);

    /** Permits for probes; each round of {@link #KEYS} takes as many. */
    private static volatile Semaphore probes;

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aReloadBringsTheTablesChangesIntoTheCache() throws Exception {
        Path path = dir.resolve("t");
        LanceTables.create(path.toString(), schema(), List.of("id"), TableSharding.bucket("id", 4), Map.of());
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
            writers.write(7, "before", false);
            writers.write(8, "eight", false);
            writers.publish();
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1); // no checkpoints: the collected rows reach the test as they are produced
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        WalSinkSqlLookupJoinTest.declare(sql, path, "FULL", FULL_RELOAD, "100 ms");
        probes = new Semaphore(0);
        DataStream<Long> keys = env.fromSequence(0, Long.MAX_VALUE).map(new GatedProbe());
        WalSinkSqlLookupJoinTest.probeView(sql, keys);

        try (CloseableIterator<Row> it = sql.executeSql(
                        "SELECT p.f0, t.name FROM probe AS p LEFT JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.f0 = t.id")
                .collect()) {
            assertThat(round(it)).as("the first load").containsExactly("7=before", "8=eight", "9=null");
            try (RootAllocator allocator = new RootAllocator();
                    BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
                writers.write(7, "after", false);
                writers.write(8, "deleted", true);
                writers.write(9, "new", false);
                writers.publish();
            }
            List<String> expected = List.of("7=after", "8=null", "9=new");
            long deadline = System.nanoTime() + RELOAD_DEADLINE.toNanos();
            List<String> answers;
            int rounds = 1;
            do {
                answers = round(it);
                rounds++;
            } while (!answers.equals(expected) && System.nanoTime() < deadline);
            assertThat(answers).as("after %s rounds", rounds).isEqualTo(expected);
        }
    }

    /** Lets one probe of each key through and returns the answers, in probe order. */
    private static List<String> round(CloseableIterator<Row> it) {
        probes.release(KEYS.length);
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < KEYS.length; i++) {
            Row row = it.next();
            answers.add(row.getField(0) + "=" + row.getField(1));
        }
        return answers;
    }

    private static Schema schema() {
        return new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    }

    /** Turns the n-th number into the probe of KEYS[n % 3], once the test gives a permit. */
    private static final class GatedProbe implements MapFunction<Long, Long> {
        @Override
        public Long map(Long n) throws InterruptedException {
            probes.acquire();
            return KEYS[(int) (n % KEYS.length)];
        }
    }
}
