package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner at a tiny size: every method's turns wrote rows and were charged CPU time. */
class RowPathCpuReportTest {
    @Test
    void eachMethodRunsItsTurnsAndTheTableNamesThem() throws InterruptedException {
        List<CpuTurns.Turn<RowPathCpuReport.Method>> turns = RowPathCpuReport.measure(10_000, 1, 2);

        assertThat(turns).hasSize(2 * RowPathCpuReport.Method.values().length);
        for (RowPathCpuReport.Method m : RowPathCpuReport.Method.values()) {
            assertThat(turns.stream().filter(t -> t.method() == m)).hasSize(2);
        }
        assertThat(turns).allSatisfy(t -> {
            assertThat(t.rows()).isPositive();
            assertThat(t.cpuNanos()).isPositive();
        });
        String table = RowPathCpuReport.render(10_000, turns);
        assertThat(table).contains("row copy baseline", "driver write row", "1.00x");
    }
}
