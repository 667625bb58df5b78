package io.walsink.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** How the JMH report groups benchmarks: one group per parameter value, each led by its baseline. */
class BenchmarkGroupTest {
    @Test
    void oneGroupPerParameterValueWithTheBaselineFirst() {
        List<BenchmarkGroup> groups = BenchmarkGroup.discover(List.of(MemtablePutBenchmark.class), Pattern.compile(""));
        assertThat(groups)
                .extracting(BenchmarkGroup::params)
                .containsExactly(Map.of("keySpace", "1000000"), Map.of("keySpace", "10000"));
        assertThat(groups.get(0).methods()).containsExactly("baseline", "driverWriteRow", "shardPutBatch");
        assertThat(groups.get(0).paramsText()).isEqualTo("keySpace=1000000");
    }

    @Test
    void aSelectedBenchmarkBringsItsBaseline() {
        List<BenchmarkGroup> groups = BenchmarkGroup.discover(
                List.of(MemtablePutBenchmark.class, WalEncodeBenchmark.class), Pattern.compile("shardPutBatch"));
        assertThat(groups).allSatisfy(g -> {
            assertThat(g.type()).isEqualTo(MemtablePutBenchmark.class);
            assertThat(g.methods()).containsExactly("baseline", "shardPutBatch");
        });
    }
}
