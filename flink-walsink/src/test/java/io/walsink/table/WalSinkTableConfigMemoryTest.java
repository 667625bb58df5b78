package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.ShardWriterConfig.MemorySetting;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** Memory options left out of a table's WITH clause stay unset, so the writer derives them from its slot. */
class WalSinkTableConfigMemoryTest {

    @Test
    void onlyTheMemoryOptionsGivenCountAsSet() {
        WalSinkTableConfig none = WalSinkTableConfig.from(Configuration.fromMap(Map.of("path", "/tmp/t")));
        assertThat(none.writer().explicitMemorySettings()).isEmpty();

        WalSinkTableConfig some = WalSinkTableConfig.from(Configuration.fromMap(
                Map.of("path", "/tmp/t", "sink.memtable.max-size", "16mb", "sink.wal.max-buffer-size", "1mb")));
        assertThat(some.writer().explicitMemorySettings())
                .containsExactlyInAnyOrder(MemorySetting.MEMTABLE, MemorySetting.WAL_BUFFER);
        assertThat(some.writer().memtableMaxBytes()).isEqualTo(16L << 20);

        WalSinkTableConfig all = WalSinkTableConfig.from(Configuration.fromMap(Map.of(
                "path", "/tmp/t",
                "sink.max-unflushed-bytes", "256mb",
                "sink.max-unflushed-bytes-per-subtask", "512mb",
                "sink.max-off-heap-bytes-per-subtask", "700mb")));
        assertThat(all.writer().explicitMemorySettings())
                .containsExactlyInAnyOrder(
                        MemorySetting.UNFLUSHED, MemorySetting.UNFLUSHED_PER_SUBTASK, MemorySetting.OFF_HEAP);
    }

    @Test
    void theWalAppendRateReachesTheWriter() {
        WalSinkTableConfig set = WalSinkTableConfig.from(
                Configuration.fromMap(Map.of("path", "/tmp/t", "sink.wal.max-appends-per-second", "40")));
        assertThat(set.writer().walMaxAppendsPerSecond()).isEqualTo(40);
    }

    @Test
    void howLongMergedSsTablesStayListedReachesTheWriter() {
        WalSinkTableConfig set = WalSinkTableConfig.from(
                Configuration.fromMap(Map.of("path", "/tmp/t", "sink.compaction.keep-merged-for", "45 s")));
        assertThat(set.writer().keepMergedFor()).isEqualTo(Duration.ofSeconds(45));
        WalSinkTableConfig unset = WalSinkTableConfig.from(Configuration.fromMap(Map.of("path", "/tmp/t")));
        assertThat(unset.writer().keepMergedFor()).isEqualTo(Duration.ofSeconds(10));
    }
}
