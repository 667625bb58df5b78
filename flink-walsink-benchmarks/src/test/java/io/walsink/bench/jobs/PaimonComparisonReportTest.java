package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.bench.jobs.Q1Pipelines.Pipeline;
import io.walsink.bench.runner.Definitions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The walsink-beside-Paimon runner end to end at a tiny size: walsink's pair on a local cluster
 * here, Paimon's pair in the paimon-reference JVM on Flink 1.20, and both sides' tables equal to
 * the model. The report's arithmetic and the Paimon table's check are checked on made-up results.
 */
class PaimonComparisonReportTest {
    @Test
    void runsBothSidesAndBothTablesEqualTheModel() throws Exception {
        StringBuilder out = new StringBuilder();
        List<PaimonComparisonReport.Round> rounds = PaimonComparisonReport.run(
                Definitions.get("sql-vs-paimon")
                        .parse(
                                "--rows",
                                "4000",
                                "--keys",
                                "1000",
                                "--buckets",
                                "4",
                                "--rounds",
                                "1",
                                "--warmup-rows",
                                "0",
                                "--checkpoint-ms",
                                "200",
                                "--paimon-heap",
                                "512m"),
                out::append);
        System.out.print(out);

        assertThat(rounds).singleElement().satisfies(r -> {
            assertThat(r.buckets()).isEqualTo(4);
            assertThat(r.tablesMatch()).as(out.toString()).isTrue();
            assertThat(r.walsink().check().rows()).isEqualTo(1_000);
            assertThat(r.paimon().tableRows()).isEqualTo(1_000);
            assertThat(r.paimon().rows()).isEqualTo(4_000);
            assertThat(r.paimonBlackhole().rows()).isEqualTo(4_000);
        });
        assertThat(out.toString()).contains("walsink ratio / Paimon ratio", ">= 1.50x");
    }

    /** Made-up rounds: walsink at half its blackhole's rate and Paimon at a quarter, 256 buckets slower. */
    @Test
    void setsEachSidesRatioAgainstTheOtherAndEachBucketCountAgainstTheFirst() {
        List<PaimonComparisonReport.Round> rounds = List.of(round(4, 2.0, 4.0), round(256, 2.5, 8.0));
        int[] buckets = {4, 256};

        assertThat(PaimonComparisonReport.summary(rounds, buckets))
                .contains("0.50x (0.50x-0.50x)", "0.25x (0.25x-0.25x)", "2.00x (2.00x-2.00x)", "0.40x", "0.13x");
        assertThat(PaimonComparisonReport.scaling(rounds, buckets))
                .contains("256 / 4", "0.80x (0.80x-0.80x)", "0.50x (0.50x-0.50x)", "yes");
    }

    /** One round of 1 M rows: both blackholes take 1 s, walsink and Paimon the given seconds. */
    private static PaimonComparisonReport.Round round(int buckets, double walsinkSeconds, double paimonSeconds) {
        long rows = 1_000_000;
        Q1Check.Outcome model = new Q1Check.Outcome(1000, 1000, 0, 0, 0, "");
        return new PaimonComparisonReport.Round(
                buckets,
                1,
                new Q1Report.Run(1, Pipeline.SQL_WALSINK, rows, seconds(walsinkSeconds), model, Map.of()),
                new Q1Report.Run(1, Pipeline.SQL_BLACKHOLE, rows, seconds(1), null, Map.of()),
                new PaimonJvm.Result("round-1", "paimon", buckets, rows, (long) (paimonSeconds * 1000), 1000, 1000, 0),
                new PaimonJvm.Result("round-1", "blackhole", buckets, rows, 1000, -1, -1, -1),
                null);
    }

    private static Q1Pipelines.Timing seconds(double s) {
        return new Q1Pipelines.Timing((long) (s * 1e9), -1, 0, 0);
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
        PaimonJvm.Result paimon = PaimonJvm.parse("round-2 paimon 256 4000 1234 1000 1000 77");
        assertThat(paimon).isEqualTo(new PaimonJvm.Result("round-2", "paimon", 256, 4000, 1234, 1000, 1000, 77));
        PaimonJvm.Result blackhole = PaimonJvm.parse("warmup blackhole 4 4000 99");
        assertThat(blackhole.tableRows()).isEqualTo(-1);
        assertThat(PaimonJvm.parse("warmup paimon 4 4000 99 0 0 null").sumV1()).isZero();
    }
}
