package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.bench.runner.Definitions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The walsink-beside-Paimon runner end to end at a tiny size: walsink's pair on a local cluster
 * here, Paimon's pair in the paimon-reference JVM on Flink 1.20, and both sides' tables equal to
 * the model. The Paimon table's check is itself checked on made-up results.
 */
class PaimonComparisonReportTest {
    @Test
    void runsBothSidesAtEveryBucketCountAndBothTablesEqualTheModel() throws Exception {
        StringBuilder out = new StringBuilder();
        List<PaimonComparisonReport.Round> rounds = PaimonComparisonReport.run(
                Definitions.get("sql-vs-paimon")
                        .parse(
                                "--rows",
                                "4000",
                                "--keys",
                                "1000",
                                "--buckets",
                                "2,4",
                                "--rounds",
                                "1",
                                "--warmup-rows",
                                "0",
                                "--checkpoint-ms",
                                "500",
                                "--paimon-heap",
                                "512m"),
                out::append);
        System.out.print(out);

        assertThat(rounds).extracting(PaimonComparisonReport.Round::buckets).containsExactly(2, 4);
        assertThat(rounds).allSatisfy(r -> {
            assertThat(r.tablesMatch()).as(out.toString()).isTrue();
            assertThat(r.walsink().check().rows()).isEqualTo(1_000);
            assertThat(r.paimon().tableRows()).isEqualTo(1_000);
            assertThat(r.paimon().rows()).isEqualTo(4_000);
            assertThat(r.paimonBlackhole().rows()).isEqualTo(4_000);
        });
        assertThat(out.toString()).contains("walsink ratio / Paimon ratio", "Paimon rows/s ratio", "4 / 2", ">= 1.50x");
    }

    @Test
    void paimonTableCheckTellsAStaleRowAndAMissingKey() {
        PaimonTableModel model = PaimonTableModel.of(new Q1Rows(4000, 1000, 2, 42));
        assertThat(model.rows()).isEqualTo(1000);
        PaimonJvm.Result right = new PaimonJvm.Result("round-1", "paimon", 4, 4000, 1000, 1000, 1000, model.sumV1());
        assertThat(model.mismatch(right)).isNull();
        // one key kept an earlier change: v1 = 3i + seed is smaller by 3 per change it is behind
        PaimonJvm.Result stale =
                new PaimonJvm.Result("round-1", "paimon", 4, 4000, 1000, 1000, 1000, model.sumV1() - 3);
        assertThat(model.mismatch(stale)).startsWith("no:");
        PaimonJvm.Result missing = new PaimonJvm.Result("round-1", "paimon", 4, 4000, 1000, 999, 999, model.sumV1());
        assertThat(model.mismatch(missing)).startsWith("no:");
    }

    @Test
    void parsesTheChildsResultLines() {
        PaimonJvm.Result paimon = PaimonJvm.parse("paimon-q1-run round-2 paimon 256 4000 1234 1000 1000 77");
        assertThat(paimon).isEqualTo(new PaimonJvm.Result("round-2", "paimon", 256, 4000, 1234, 1000, 1000, 77));
        PaimonJvm.Result blackhole = PaimonJvm.parse("paimon-q1-run warmup blackhole 4 4000 99");
        assertThat(blackhole.tableRows()).isEqualTo(-1);
        assertThat(PaimonJvm.parse("paimon-q1-run warmup paimon 4 4000 99 0 0 null")
                        .sumV1())
                .isZero();
    }
}
