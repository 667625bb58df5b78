package io.walsink.flink.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.SinkOptions;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** One check of the sink options for the builder and SQL alike: every problem at once, each naming its option. */
class SinkSettingsTest {

    @Test
    void theDefaultsAreValidAndNothingCountsAsSet() {
        SinkSettings defaults = SinkSettings.defaults();
        for (var option : SinkOptions.all()) {
            assertThat(defaults.isSet(option)).as(option.key()).isFalse();
        }
        assertThat(defaults.get(SinkOptions.WAL_MAX_APPENDS_PER_SECOND)).isEqualTo(20);
        assertThat(defaults.shardWriterConfig().baseVersionMaxAge()).isEqualTo(Duration.ofMinutes(5));
        assertThat(defaults.offHeapBytesPerSubtask()).isEqualTo((1024L + 128 + 16) << 20);
    }

    @Test
    void valuesSetAreKeptAndReachTheShardWriter() {
        SinkSettings settings = from(Map.of(
                "sink.wal.max-appends-per-second", "7",
                "sink.flush-interval", "250 ms",
                "sink.gc.retention", "4 min"));
        assertThat(settings.isSet(SinkOptions.WAL_MAX_APPENDS_PER_SECOND)).isTrue();
        assertThat(settings.get(SinkOptions.WAL_MAX_APPENDS_PER_SECOND)).isEqualTo(7);
        assertThat(settings.shardWriterConfig().flushInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings.shardWriterConfig().baseVersionMaxAge()).isEqualTo(Duration.ofMinutes(2));
        assertThat(SinkSettings.from(settings.options()).options().toMap())
                .isEqualTo(settings.options().toMap());
    }

    @Test
    void everyProblemIsReportedAtOnceNamingItsOption() {
        assertThatThrownBy(() -> from(Map.of(
                        "sink.wal.max-appends-per-second", "0",
                        "sink.gc.retention", "0 s",
                        "sink.gc.consumer-expiration", "0 s",
                        "sink.flush-interval", "0 ms")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "Invalid walsink option 'sink.wal.max-appends-per-second': must be positive, was 0")
                .hasMessageContaining("Invalid walsink option 'sink.gc.retention': must be positive, was PT0S")
                .hasMessageContaining("Invalid walsink option 'sink.gc.consumer-expiration': must be positive")
                .hasMessageContaining(
                        "Invalid walsink option 'sink.flush-interval': must be positive for durable writes");
    }

    @Test
    void sizesThatContradictEachOtherAreRefused() {
        assertThatThrownBy(() -> from(Map.of("sink.memtable.max-size", "64mb", "sink.max-unflushed-bytes", "32mb")))
                .hasMessageContaining("sink.max-unflushed-bytes (33554432) must be at least sink.memtable.max-size");
        assertThatThrownBy(() -> from(Map.of("sink.wal.max-buffer-size", "64mb", "sink.memtable.max-size", "32mb")))
                .hasMessageContaining("sink.wal.max-buffer-size (67108864) must not exceed sink.memtable.max-size");
        assertThatThrownBy(() -> from(Map.of(
                        "sink.max-unflushed-bytes-per-subtask",
                        "256mb",
                        "sink.max-off-heap-bytes-per-subtask",
                        "200mb")))
                .hasMessageContaining("sink.max-off-heap-bytes-per-subtask (209715200) must exceed"
                        + " sink.max-unflushed-bytes-per-subtask");
    }

    private static SinkSettings from(Map<String, String> options) {
        return SinkSettings.from(Configuration.fromMap(options));
    }
}
