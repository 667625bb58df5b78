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
        assertThat(config.walMaxAppendsPerSecond()).isEqualTo(20);
    }

    @Test
    void theAppendRateIsKeptByToBuilderAndMustBePositive() {
        ShardWriterConfig config =
                ShardWriterConfig.builder().walMaxAppendsPerSecond(7).build();
        assertThat(config.toBuilder().build().walMaxAppendsPerSecond()).isEqualTo(7);
        assertThatThrownBy(() ->
                        ShardWriterConfig.builder().walMaxAppendsPerSecond(0).build())
                .hasMessageContaining("sink.wal.max-appends-per-second must be positive, was 0");
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
