package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner at a tiny size: every method's turns wrote rows and were charged CPU time. */
class FieldWriterCpuReportTest {
    @Test
    void eachMethodRunsItsTurnsAndTheTableNamesThem() throws InterruptedException {
        List<CpuTurns.Turn<FieldWriterCpuReport.Method>> turns = FieldWriterCpuReport.measure(1, 2);

        assertThat(turns).hasSize(2 * FieldWriterCpuReport.Method.values().length);
        for (FieldWriterCpuReport.Method m : FieldWriterCpuReport.Method.values()) {
            assertThat(turns.stream().filter(t -> t.method() == m)).hasSize(2);
        }
        assertThat(turns).allSatisfy(t -> {
            assertThat(t.rows()).isPositive();
            assertThat(t.cpuNanos()).isPositive();
        });
        assertThat(FieldWriterCpuReport.render(turns)).contains("checked", "in place", "1.00x");
    }
}
