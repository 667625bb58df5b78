package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ShardWriterConfigTest {

    @Test
    void defaultsAreConsistent() {
        ShardWriterConfig config = ShardWriterConfig.defaults();
        assertThat(config.flushInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.maxUnflushedBytes()).isGreaterThanOrEqualTo(config.memtableMaxBytes());
        assertThat(config.baseVersionMaxAge()).isEqualTo(ShardWriterConfig.baseVersionMaxAge(Duration.ofHours(1)));
    }

    @Test
    void howLongMergedSsTablesStayListedIsKeptByToBuilderAndMustNotBeNegative() {
        assertThat(ShardWriterConfig.defaults().keepMergedFor()).isEqualTo(Duration.ofSeconds(10));
        ShardWriterConfig config =
                ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build();
        assertThat(config.toBuilder().build().keepMergedFor()).isZero();
        assertThatThrownBy(() -> ShardWriterConfig.builder()
                        .keepMergedFor(Duration.ofSeconds(-1))
                        .build())
                .hasMessageContaining("sink.compaction.keep-merged-for must be zero or positive, was PT-1S");
    }

    @Test
    void theBaseVersionMaxAgeIsHalfTheRetentionAtMostFiveMinutes() {
        assertThat(ShardWriterConfig.baseVersionMaxAge(Duration.ofHours(1))).isEqualTo(Duration.ofMinutes(5));
        assertThat(ShardWriterConfig.baseVersionMaxAge(Duration.ofMinutes(4))).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void zeroIntervalIsRefusedNamingTheOption() {
        assertThatThrownBy(() ->
                        ShardWriterConfig.builder().flushInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sink.flush-interval");
    }

    @Test
    void budgetSmallerThanOneMemtableIsRefused() {
        assertThatThrownBy(() -> ShardWriterConfig.builder()
                        .memtableMaxBytes(1 << 20)
                        .maxUnflushedBytes(1 << 10)
                        .build())
                .hasMessageContaining("sink.max-unflushed-bytes")
                .hasMessageContaining("sink.memtable.max-size");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        assertThatThrownBy(() -> ShardWriterConfig.builder()
                        .memtableMaxRows(0)
                        .batchMaxRows(-1)
                        .build())
                .hasMessageContaining("sink.memtable.max-rows")
                .hasMessageContaining("batch max rows");
    }
}
