package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.bench.runner.BenchmarkRunner;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * lance-core's native memory during SSTable writes at a tiny size: one measurement in this JVM, and
 * the table from a child JVM started as the runner's native-memory definition. No figure is asserted.
 */
class NativeMemoryReportTest {
    @Test
    void measuresInThisJvmWhatAWriteTakes() throws Exception {
        NativeMemoryReport.Result r = NativeMemoryReport.measure(20_000, 2);

        assertThat(r.parallel()).isEqualTo(2);
        assertThat(r.payloadBytes()).isPositive();
        assertThat(r.rssBefore()).as("the resident set was read").isPositive();
        assertThat(r.peakAbove()).isNotNegative();
    }

    @Test
    void printsOneRowPerSettingFromChildJvms() throws Exception {
        String text = NativeMemoryReport.report(20_000, "1", List.of(BenchmarkRunner.class.getName(), "native-memory"));

        assertThat(text).contains("lance-core's process memory while writing SSTables of 20,000 rows");
        assertThat(text.lines().filter(l -> l.matches("\\s+1\\s+.*"))).hasSize(1);
    }
}
