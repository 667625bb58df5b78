package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.shard.OffHeapAllocators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The floor at a tiny size: the rows lance-core wrote, read back by lance-core, are every key's
 * last change of the q1 stream, in every round (the second reuses the first's memory). No figure
 * is asserted.
 */
class FloorRoundTest {
    private static final long SEED = 7;

    @Test
    void everyRoundWritesEachKeysLastChange(@TempDir Path dir) throws Exception {
        // 20,000 changes over 5,000 keys: batches of 8,192 rows, the last one partial
        Q1Rows rows = new Q1Rows(20_000, 5_000, 1, SEED);
        System.out.println("seed " + SEED);
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE);
                FloorRound round = new FloorRound(rows, allocator)) {
            for (int r = 0; r < 2; r++) {
                Path table = dir.resolve("table-" + r);
                FloorRound.Spent spent = round.run(table);
                assertThat(spent.cpuNanos()).hasSize(FloorRound.Spent.STEPS.length);
                assertThat(round.ipcBytes()).isPositive();
                assertThat(readBack(allocator, table)).isEqualTo(expected(rows));
            }
        }
    }

    @Test
    void theChildJvmReportsEveryStep() throws Exception {
        List<FloorReport.PerRow> results = FloorReport.inChildJvms(
                20_000, 5_000, SEED, 1, "256m", FloorReport.Malloc.parse("both"), System.out::print);
        String text = FloorReport.render(20_000, 5_000, 1, results);
        System.out.println(text);

        assertThat(results)
                .extracting(FloorReport.PerRow::malloc)
                .containsExactly(FloorReport.Malloc.TUNED, FloorReport.Malloc.DEFAULT);
        for (String step : FloorRound.Spent.STEPS) {
            assertThat(text).contains(step);
        }
        assertThat(text).contains("total (the floor)");
    }

    /** key -> name and values, as lance-core reads them. */
    private static Map<Long, List<Object>> readBack(BufferAllocator allocator, Path table) throws Exception {
        Map<Long, List<Object>> read = new HashMap<>();
        try (Dataset ds = LanceTables.openDataset(allocator, table.toString(), Map.of());
                LanceScanner scanner = LanceScanner.create(ds, new ScanOptions.Builder().build(), allocator);
                ArrowReader batches = scanner.scanBatches()) {
            while (batches.loadNextBatch()) {
                VectorSchemaRoot b = batches.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    List<Object> values = new ArrayList<>();
                    values.add(((VarCharVector) b.getVector(1)).getObject(i).toString());
                    for (int j = 1; j <= Q1Rows.VALUES; j++) {
                        values.add(((BigIntVector) b.getVector(1 + j)).getObject(i));
                    }
                    List<Object> previous = read.put(((BigIntVector) b.getVector(0)).get(i), values);
                    assertThat(previous).as("one row per key").isNull();
                }
            }
        }
        return read;
    }

    private static Map<Long, List<Object>> expected(Q1Rows rows) {
        Map<Long, List<Object>> expected = new HashMap<>();
        long[] last = rows.lastChangePerKey();
        for (int key = 0; key < last.length; key++) {
            long i = last[key];
            List<Object> values = new ArrayList<>();
            values.add("bid-" + i);
            for (int j = 1; j <= Q1Rows.VALUES; j++) {
                values.add(rows.value(i, j));
            }
            expected.put((long) key, values);
        }
        return expected;
    }
}
