package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.read.ReadMode;
import io.walsink.read.scan.ScanPosition;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.TableSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Splits and the enumerator's pending list keep their pinned snapshot through a checkpoint. */
class TableScanSplitSerializerTest {
    private static final TableSnapshot SNAPSHOT = new TableSnapshot(
            ReadMode.LATEST,
            7,
            List.of(
                    new PinnedShard(UUID.fromString("0b5e2d3c-1a4f-4c6b-8d7e-9f0a1b2c3d4e"), 3, 12, 1),
                    new PinnedShard(UUID.fromString("7c6d5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f"), 0, 0, -1)));

    @Test
    void aSplitRoundTripsWithItsSnapshot() throws IOException {
        TableScanSplitSerializer serializer = new TableScanSplitSerializer();
        TableScanSplit bucket =
                TableScanSplit.of(new BucketSelection("id", 4, 1), SNAPSHOT).at(new ScanPosition(1, 5, 9));
        TableScanSplit whole = TableScanSplit.wholeTable(SNAPSHOT).at(new ScanPosition(0, 2, 2));
        for (TableScanSplit split : List.of(bucket, whole)) {
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)))
                    .isEqualTo(split);
        }
        assertThat(bucket.snapshot().shards())
                .as("a bucket split carries its bucket's shards only")
                .extracting(PinnedShard::bucket)
                .containsExactly(1);

        TableScanSplitSerializer.Pending pending = new TableScanSplitSerializer.Pending();
        assertThat(pending.deserialize(pending.getVersion(), pending.serialize(List.of(bucket, whole))))
                .containsExactly(bucket, whole);
    }

    @Test
    void aSplitOfTheFormerFormatIsRefusedSayingWhy() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) { // version 1: id, bucket, rows emitted
            out.writeUTF(TableScanSplit.WHOLE_TABLE);
            out.writeBoolean(false);
            out.writeLong(3);
        }
        assertThatThrownBy(() -> new TableScanSplitSerializer().deserialize(1, bytes.toByteArray()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("did not pin a snapshot")
                .hasMessageContaining("start the bounded scan again");
    }
}
