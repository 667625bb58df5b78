package io.walsink.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.TimeValue;

/** The JMH report's command line: short defaults, JMH's own flags, and refusals of what it cannot read. */
class ReportArgsTest {
    @Test
    void defaultsAreShort() {
        ReportArgs a = ReportArgs.defaults();
        assertThat(a.forks()).isEqualTo(1);
        assertThat(a.warmupIterations()).isEqualTo(1);
        assertThat(a.iterations()).isEqualTo(3);
        assertThat(a.rounds()).isEqualTo(1);
        assertThat(a.jmh()).isTrue();
    }

    @Test
    void readsJmhStyleFlags() {
        ReportArgs a = ReportArgs.parse(new String[] {
            "-f",
            "2",
            "-wi",
            "0",
            "-i",
            "5",
            "-w",
            "500ms",
            "-r",
            "2s",
            "--rounds",
            "3",
            "--include",
            "WalEncode",
            "--no-jmh"
        });
        assertThat(a.forks()).isEqualTo(2);
        assertThat(a.warmupIterations()).isZero();
        assertThat(a.iterations()).isEqualTo(5);
        assertThat(a.warmupTime()).isEqualTo(new TimeValue(500, TimeUnit.MILLISECONDS));
        assertThat(a.time()).isEqualTo(TimeValue.seconds(2));
        assertThat(a.rounds()).isEqualTo(3);
        assertThat(a.include()).isEqualTo("WalEncode");
        assertThat(a.jmh()).isFalse();
    }

    @Test
    void refusesWhatItCannotRead() {
        assertThatThrownBy(() -> ReportArgs.parse(new String[] {"--fast"})).hasMessageContaining("unknown option");
        assertThatThrownBy(() -> ReportArgs.parse(new String[] {"-i"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> ReportArgs.parse(new String[] {"-r", "1m"})).hasMessageContaining("1s or 500ms");
        assertThatThrownBy(() -> ReportArgs.parse(new String[] {"-i", "0"})).hasMessageContaining("at least 1");
    }
}
