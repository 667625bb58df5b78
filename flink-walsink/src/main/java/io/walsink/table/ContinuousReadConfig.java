package io.walsink.table;

import static io.walsink.table.WalSinkTableOptions.SCAN_CONSUMER_ID;
import static io.walsink.table.WalSinkTableOptions.SCAN_DISCOVERY_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.SCAN_MODE;
import static io.walsink.table.WalSinkTableOptions.SCAN_STARTUP_MODE;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.read.ReadMode;
import io.walsink.table.stream.StartupMode;
import java.time.Duration;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;

/**
 * Whether a SELECT reads continuously, and how, from the table's options and the job's runtime
 * mode: a streaming job follows the table by default (as Paimon's tables do), a batch job always
 * reads the bounded snapshot. Kept apart from {@link WalSinkTableConfig} because it depends on
 * the job, not only on the table.
 */
record ContinuousReadConfig(StartupMode startup, Duration discoveryInterval, String consumerId) {

    /** @throws ValidationException naming the option at fault */
    static ContinuousReadConfig from(ReadableConfig options, ReadableConfig job, ReadMode scanMode) {
        StartupMode startup;
        try {
            startup = options.getOptional(SCAN_STARTUP_MODE)
                    .map(StartupMode::parse)
                    // a time-travel read is the bounded read of one version
                    .orElse(TimeTravel.requested(options) ? StartupMode.SNAPSHOT : StartupMode.INITIAL);
        } catch (IllegalArgumentException e) {
            throw invalid(SCAN_STARTUP_MODE.key(), e.getMessage());
        }
        Duration interval = options.get(SCAN_DISCOVERY_INTERVAL);
        if (interval.isZero() || interval.isNegative()) {
            throw invalid(SCAN_DISCOVERY_INTERVAL.key(), "must be positive, was " + interval);
        }
        String consumerId = options.getOptional(SCAN_CONSUMER_ID).orElse(null);
        if (consumerId != null) {
            try {
                ConsumerRecord.requireName(consumerId, "a consumer id");
            } catch (IllegalArgumentException e) {
                throw invalid(SCAN_CONSUMER_ID.key(), e.getMessage());
            }
        }
        if (job.get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH) {
            startup = StartupMode.SNAPSHOT;
        }
        if (startup.continuous() && scanMode == ReadMode.LATEST) {
            throw invalid(
                    SCAN_MODE.key(),
                    "latest reads the WAL tail, which a continuous read does not follow: it emits published"
                            + " generations only, and a WAL entry read once would come again in the generation that"
                            + " later holds it. Use scan.mode committed, or scan.startup-mode snapshot for a bounded"
                            + " read that includes the WAL tail");
        }
        return new ContinuousReadConfig(startup, interval, consumerId);
    }

    boolean continuous() {
        return startup.continuous();
    }

    private static ValidationException invalid(String key, String problem) {
        return new ValidationException("Invalid walsink option '" + key + "': " + problem);
    }
}
