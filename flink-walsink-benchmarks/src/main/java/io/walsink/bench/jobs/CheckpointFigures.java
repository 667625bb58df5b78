package io.walsink.bench.jobs;

import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.FailedCheckpointStats;
import org.apache.flink.runtime.util.stats.StatsSummarySnapshot;

/**
 * A job's checkpoints as Flink counted them: how many completed or failed, and how long one took
 * from trigger to completion (median, largest). A walsink writer publishes at completion, so the
 * duration adds to every row's visibility, and a checkpoint longer than its interval delays the next.
 */
record CheckpointFigures(long completed, long failed, long p50Ms, long maxMs, String latestFailure) {
    static final CheckpointFigures NONE = new CheckpointFigures(0, 0, -1, -1, "");

    static CheckpointFigures of(CheckpointStatsSnapshot stats) {
        if (stats == null) {
            return NONE;
        }
        StatsSummarySnapshot duration = stats.getSummaryStats().getEndToEndDurationStats();
        boolean any = duration.getCount() > 0;
        return new CheckpointFigures(
                stats.getCounts().getNumberOfCompletedCheckpoints(),
                stats.getCounts().getNumberOfFailedCheckpoints(),
                any ? Math.round(duration.getQuantile(0.5)) : -1,
                any ? duration.getMaximum() : -1,
                latestFailure(stats.getHistory().getLatestFailedCheckpoint()));
    }

    private static String latestFailure(FailedCheckpointStats failed) {
        if (failed == null) {
            return "";
        }
        String message = String.valueOf(failed.getFailureMessage());
        int cause = message.indexOf('\n'); // the first line names the reason; the stack trace follows
        return "checkpoint " + failed.getCheckpointId() + ": " + (cause < 0 ? message : message.substring(0, cause));
    }
}
