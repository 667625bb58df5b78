package io.walsink.table.lookup;

import io.walsink.annotation.Internal;
import io.walsink.table.scan.TableScanSplit;
import org.apache.flink.core.io.InputSplit;

/** One part of a FULL cache load: a bucket (or the whole table) of the snapshot the load pinned. */
@Internal
public record FullCacheSplit(int number, TableScanSplit scan) implements InputSplit {
    @Override
    public int getSplitNumber() {
        return number;
    }
}
