package io.walsink.table.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.table.scan.ScanHarness;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * Drives a {@link WalTableChangeSource} as Flink's source operator does, without a cluster:
 * splits from the enumerator's start, rows polled into a list, checkpoints through the source's
 * serializers. Waits are on the reader's own availability future, bounded.
 */
final class ChangeHarness {
    final WalTableChangeSource source;

    ChangeHarness(ChangeStream stream) {
        this.source = new WalTableChangeSource(stream);
    }

    SourceReader<RowData, ChangeSplit> reader(List<ChangeSplit> splits) {
        return reader(splits, UnregisteredMetricsGroup.createSourceReaderMetricGroup());
    }

    SourceReader<RowData, ChangeSplit> reader(List<ChangeSplit> splits, SourceReaderMetricGroup metrics) {
        SourceReader<RowData, ChangeSplit> reader = source.createReader(new ScanHarness.ReaderContext(metrics));
        reader.start();
        reader.addSplits(splits);
        return reader;
    }

    /** Polls exactly {@code rows} rows (fails if they do not come within a minute of waiting). */
    static List<String> poll(SourceReader<RowData, ChangeSplit> reader, int rows) throws Exception {
        ScanHarness.RecordingOutput output = new ScanHarness.RecordingOutput();
        int waits = 0;
        while (output.rows.size() < rows) {
            InputStatus status = reader.pollNext(output);
            assertThat(status).isNotEqualTo(InputStatus.END_OF_INPUT);
            if (status == InputStatus.NOTHING_AVAILABLE) {
                assertThat(waits++)
                        .as("waits for %s rows, got %s", rows, output.rows.size())
                        .isLessThan(6000);
                reader.isAvailable().get(10, TimeUnit.SECONDS);
            }
        }
        return changes(output.rows);
    }

    /**
     * Polls until a poll right after the reader woke up for its next look at the manifests
     * finds nothing: everything published before the call is then emitted.
     */
    static List<String> drain(SourceReader<RowData, ChangeSplit> reader) throws Exception {
        ScanHarness.RecordingOutput output = new ScanHarness.RecordingOutput();
        boolean woke = false;
        while (true) {
            InputStatus status = reader.pollNext(output);
            assertThat(status).isNotEqualTo(InputStatus.END_OF_INPUT);
            if (status == InputStatus.MORE_AVAILABLE) {
                woke = false;
            } else if (woke) {
                return changes(output.rows);
            } else {
                reader.isAvailable().get(10, TimeUnit.SECONDS);
                woke = true;
            }
        }
    }

    /** The reader's checkpoint as Flink stores and restores it: through the split serializer. */
    List<ChangeSplit> checkpoint(SourceReader<RowData, ChangeSplit> reader, long id) throws Exception {
        return ScanHarness.throughSerializer(source.getSplitSerializer(), reader.snapshotState(id));
    }

    /** "+I 3=a", "+U 3=b", "-D 3" for a {@code (id BIGINT, name STRING)} table. */
    static List<String> changes(List<RowData> rows) {
        return rows.stream()
                .map(r -> r.getRowKind().shortString() + " " + r.getLong(0)
                        + (r.getRowKind() == RowKind.DELETE ? "" : "=" + r.getString(1)))
                .toList();
    }
}
