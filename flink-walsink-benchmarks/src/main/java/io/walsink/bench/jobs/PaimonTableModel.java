package io.walsink.bench.jobs;

/**
 * What Paimon's table must hold after a run of the q1 rows: one row per key the rows touch, each
 * the key's last change, summarised as the row count and the sum of {@code v1} (which the last
 * change decides, so a stale row or a lost key changes it).
 */
record PaimonTableModel(long rows, long sumV1) {
    static PaimonTableModel of(Q1Rows q1) {
        long rows = 0;
        long sum = 0;
        for (long last : q1.lastChangePerKey()) {
            if (last >= 0) {
                rows++;
                sum = Math.addExact(sum, q1.value(last, 1));
            }
        }
        return new PaimonTableModel(rows, sum);
    }

    /** Null when {@code run}'s table equals the model, else what differs. */
    String mismatch(PaimonJvm.Result run) {
        if (run.tableRows() == rows && run.tableKeys() == rows && run.sumV1() == sumV1) {
            return null;
        }
        return String.format(
                "no: %,d rows, %,d keys, sum(v1) %d; the model: %,d rows and keys, sum(v1) %d",
                run.tableRows(), run.tableKeys(), run.sumV1(), rows, sumV1);
    }
}
