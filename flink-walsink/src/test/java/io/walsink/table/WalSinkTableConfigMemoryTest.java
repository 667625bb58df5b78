package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.SinkOptions;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

/** Sink options left out of a table's WITH clause stay unset, so the writer derives memory sizes from its slot. */
class WalSinkTableConfigMemoryTest {

    @Test
    void onlyTheMemoryOptionsGivenCountAsSet() {
        WalSinkTableConfig none = WalSinkTableConfig.from(Configuration.fromMap(Map.of("path", "/tmp/t")));
        for (var option : SinkOptions.all()) {
            assertThat(none.sink().isSet(option)).as(option.key()).isFalse();
        }

        WalSinkTableConfig some = WalSinkTableConfig.from(Configuration.fromMap(
                Map.of("path", "/tmp/t", "sink.memtable.max-size", "16mb", "sink.wal.max-buffer-size", "1mb")));
        assertThat(some.sink().isSet(SinkOptions.MEMTABLE_MAX_SIZE)).isTrue();
        assertThat(some.sink().isSet(SinkOptions.WAL_MAX_BUFFER_SIZE)).isTrue();
        assertThat(some.sink().isSet(SinkOptions.MAX_UNFLUSHED_BYTES)).isFalse();
        assertThat(some.sink().get(SinkOptions.MEMTABLE_MAX_SIZE)).isEqualTo(MemorySize.ofMebiBytes(16));
    }

    @Test
    void theWalAppendRateReachesTheSink() {
        WalSinkTableConfig set = WalSinkTableConfig.from(
                Configuration.fromMap(Map.of("path", "/tmp/t", "sink.wal.max-appends-per-second", "40")));
        assertThat(set.sink().get(SinkOptions.WAL_MAX_APPENDS_PER_SECOND)).isEqualTo(40);
    }

    @Test
    void howLongMergedSsTablesStayListedReachesTheShardWriter() {
        WalSinkTableConfig set = WalSinkTableConfig.from(
                Configuration.fromMap(Map.of("path", "/tmp/t", "sink.compaction.keep-merged-for", "45 s")));
        assertThat(set.sink().shardWriterConfig().keepMergedFor()).isEqualTo(Duration.ofSeconds(45));
        WalSinkTableConfig unset = WalSinkTableConfig.from(Configuration.fromMap(Map.of("path", "/tmp/t")));
        assertThat(unset.sink().shardWriterConfig().keepMergedFor()).isEqualTo(Duration.ofSeconds(10));
    }
}
