package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.table.TableSharding;
import io.walsink.read.ReadMode;
import io.walsink.table.scan.TableScanRestoreTest;
import io.walsink.table.stream.ChangeModel;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code INSERT INTO dst SELECT ... FROM src}, both walsink tables, in a streaming SQL job: src is
 * read continuously (snapshot, then changes) while the shard engine's writers keep publishing
 * upserts and deletes to it, the job fails once at a seeded random row, and dst, read outside
 * Flink, ends equal to the writers' model of src.
 */
class ContinuousSqlPipelineTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final int KEYS = 80;
    private static final AtomicLong ROWS = new AtomicLong();
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static volatile long failAt;

    @TempDir
    Path dir;

    /** Passes its argument through; throws once, at the {@link #failAt}-th row of the run. */
    public static final class FailOnce extends ScalarFunction {
        public String eval(String value) {
            if (ROWS.incrementAndGet() == failAt && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure at row " + failAt);
            }
            return value;
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aWalsinkToWalsinkPipelineEndsEqualToTheModelAcrossAFailure() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ContinuousSqlPipelineTest seed " + seed);
        Random random = new Random(seed);
        Path src = dir.resolve("src");
        Path dst = dir.resolve("dst");
        LanceTables.create(
                src.toString(), TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(src.toString(), allocator)) {
            ChangeModel changes = new ChangeModel(writers, random, KEYS);
            changes.writeAndPublish(2);
            ROWS.set(0);
            FAILED.set(false);
            failAt = 1 + random.nextInt(2 * KEYS);

            StreamTableEnvironment sql = SqlTables.env();
            sql.createTemporarySystemFunction("fail_once", FailOnce.class);
            sql.executeSql(SqlTables.walsinkTable(
                    "src",
                    "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED",
                    src,
                    "scan.startup-mode",
                    "initial",
                    "scan.discovery-interval",
                    "50ms"));
            sql.executeSql(SqlTables.walsinkTable(
                    "dst", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", dst, "buckets", "2"));
            TableResult job = sql.executeSql("INSERT INTO dst SELECT id, fail_once(name) FROM src");
            try {
                for (int round = 0; round < 5; round++) {
                    changes.writeAndPublish(1); // while the job reads
                }
                assertThat(awaitEqual(dst, changes.model)).as("seed %s", seed).isEqualTo(changes.model);
                assertThat(FAILED).as("the job failed once, seed %s", seed).isTrue();
            } finally {
                job.getJobClient().orElseThrow().cancel().get();
            }
        }
    }

    /**
     * Reads dst (published data, outside Flink) until it equals {@code model}, at most two
     * minutes; returns the last read, which the caller compares (so a timeout shows the
     * difference). A bounded poll of a condition: the writers and the job run on their own.
     */
    private static Map<Long, String> awaitEqual(Path dst, Map<Long, String> model) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        int reads = 0;
        Map<Long, String> last = Map.of();
        while (System.nanoTime() < deadline) {
            try {
                Map<Long, String> read = new TreeMap<>();
                for (Map<String, Object> row : SqlTables.read(dst, ReadMode.COMMITTED)) {
                    read.put((Long) row.get("id"), String.valueOf(row.get("name")));
                }
                last = read;
                reads++;
                if (last.equals(model)) {
                    break;
                }
            } catch (TableNotFoundException e) {
                // the job has not created dst yet
            }
            TimeUnit.MILLISECONDS.sleep(200); // pause between polls of the condition
        }
        assertThat(reads).as("dst was read").isPositive();
        return last;
    }
}
