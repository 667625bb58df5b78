package io.walsink.table.stream;

import io.walsink.annotation.Internal;
import io.walsink.table.scan.TableScanEnumerator;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * A continuous FLIP-27 source of a walsink table's changes (see {@link ChangeStream}). The
 * enumerator pins the snapshot and hands out one split per bucket when the job starts; it never
 * discovers anything later (readers find the generations and shards of their splits themselves),
 * so a restored enumerator only keeps the splits not yet assigned.
 */
@Internal
public final class WalTableChangeSource implements Source<RowData, ChangeSplit, List<ChangeSplit>> {
    private static final long serialVersionUID = 1L;

    private final ChangeStream stream;

    public WalTableChangeSource(ChangeStream stream) {
        this.stream = stream;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<ChangeSplit, List<ChangeSplit>> createEnumerator(
            SplitEnumeratorContext<ChangeSplit> context) {
        return new TableScanEnumerator<>(context, stream.splits());
    }

    @Override
    public SplitEnumerator<ChangeSplit, List<ChangeSplit>> restoreEnumerator(
            SplitEnumeratorContext<ChangeSplit> context, List<ChangeSplit> pending) {
        return new TableScanEnumerator<>(context, pending);
    }

    @Override
    public SimpleVersionedSerializer<ChangeSplit> getSplitSerializer() {
        return new ChangeSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<List<ChangeSplit>> getEnumeratorCheckpointSerializer() {
        return new ChangeSplitSerializer.Pending();
    }

    @Override
    public SourceReader<RowData, ChangeSplit> createReader(SourceReaderContext context) {
        return new ChangeReader(context, stream);
    }

    public ChangeStream stream() {
        return stream;
    }
}
