package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.bench.Q1Pipelines.Pipeline;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The q1 runner end to end at a tiny size: every pipeline runs on a real local cluster, the
 * printed tables have a line per run and per pair, and each walsink run's table was read back
 * and equals the model (so no timing in the report can come from a sink that lost rows).
 */
class Q1ReportTest {
    @Test
    void runsEveryPipelineAndTheWalsinkTablesEqualTheModel() throws Exception {
        StringBuilder out = new StringBuilder();
        List<Q1Report.Run> runs = Q1Report.run(
                Q1Report.flags("--rows", "20000", "--keys", "5000", "--rounds", "1", "--warmup-rows", "0"),
                out::append);

        assertThat(runs).extracting(Q1Report.Run::pipeline).containsExactlyInAnyOrder(Pipeline.values());
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.rows()).isEqualTo(20_000);
            assertThat(r.timing().netNanos()).isPositive();
            // The generator saw the DataStream jobs' first row (same JVM); SQL's datagen cannot tell.
            if (r.pipeline().api.equals("DataStream")) {
                assertThat(r.timing().fromFirstRowNanos()).isPositive();
                assertThat(r.timing().cpuFromFirstRowNanos()).isPositive();
            } else {
                assertThat(r.timing().fromFirstRowNanos()).isEqualTo(-1);
                assertThat(r.timing().cpuFromFirstRowNanos()).isEqualTo(-1);
            }
            if (r.pipeline().walsink()) {
                assertThat(r.check().matches()).as(r.check().text()).isTrue();
                assertThat(r.check().rows()).isEqualTo(5_000);
            } else {
                assertThat(r.check()).isNull();
            }
        });
        assertThat(out.toString())
                .contains("WalSink.forRowData", "DiscardingSink", "'connector'='walsink'", "'connector'='blackhole'")
                .contains("DataStream (DiscardingSink)", "SQL ('connector'='blackhole')")
                .contains("yes (5,000 keys)")
                .contains("reference CPU / walsink CPU");
    }

    @Test
    void refusesSizesTheKeyOwnershipCannotSplit() {
        assertThatThrownBy(() -> Q1Report.run(Q1Report.flags("--rows", "20001"), s -> {}))
                .hasMessageContaining("multiples of the parallelism");
        assertThatThrownBy(() -> Q1Report.flags("--pipelines")).hasMessageContaining("needs a value");
    }
}
