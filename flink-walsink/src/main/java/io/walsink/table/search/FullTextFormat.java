package io.walsink.table.search;

import io.walsink.annotation.Internal;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TextHit;
import io.walsink.read.search.SnapshotSearch;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.S3Options;
import io.walsink.table.scan.ProjectedRowExtractor;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.io.GenericInputFormat;
import org.apache.flink.core.io.GenericInputSplit;
import org.apache.flink.table.data.RowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded read of a full-text SELECT: one split, which pins the committed table when it is
 * opened and returns its best matches ({@link SnapshotSearch#fullText}), best first, projected.
 */
@Internal
public final class FullTextFormat extends GenericInputFormat<RowData> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FullTextFormat.class);

    private final String path;
    private final S3Options s3;
    private final WalSchemaProfile profile;
    private final FullTextScan scan;
    private final List<String> columns;
    private transient Iterator<TextHit<RowData>> hits;

    /** @param columns the columns of a returned row, in order */
    public FullTextFormat(
            String path, S3Options s3, WalSchemaProfile profile, FullTextScan scan, List<String> columns) {
        this.path = Objects.requireNonNull(path, "path");
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.scan = Objects.requireNonNull(scan, "scan");
        this.columns = List.copyOf(columns);
    }

    @Override
    public GenericInputSplit[] createInputSplits(int minNumSplits) {
        return new GenericInputSplit[] {new GenericInputSplit(0, 1)}; // one read of the whole table
    }

    @Override
    public void open(GenericInputSplit split) throws IOException {
        super.open(split);
        try (SnapshotReader reader = SnapshotReader.open(path, s3, profile)) {
            List<TextHit<RowData>> found = SnapshotSearch.fullText(
                    reader, reader.pin(ReadMode.COMMITTED), scan.textQuery(), new ProjectedRowExtractor(columns));
            LOG.info("Full-text SELECT on walsink table {}: {} matches of {}", path, found.size(), scan);
            hits = found.iterator();
        }
    }

    @Override
    public boolean reachedEnd() {
        return !hits.hasNext();
    }

    @Override
    public RowData nextRecord(RowData reuse) {
        return hits.next().row();
    }

    @Override
    public void close() throws IOException {
        hits = null;
        super.close();
    }
}
