package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.BucketSelection;
import io.walsink.read.PinnedShard;
import io.walsink.read.ReadMode;
import io.walsink.read.TableSnapshot;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Splits as (id, bucket, pinned snapshot, rows emitted); lists of them as the enumerator's
 * checkpoint. Version 1 splits (before issue #19) carry no snapshot: a row count is only exact
 * within the snapshot it was counted in, so they are refused rather than resumed inexactly.
 */
@Internal
public final class TableScanSplitSerializer implements SimpleVersionedSerializer<TableScanSplit> {
    private static final int VERSION = 2;
    private static final int UNPINNED = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(TableScanSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(split, out);
        }
        return bytes.toByteArray();
    }

    @Override
    public TableScanSplit deserialize(int version, byte[] serialized) throws IOException {
        requireVersion(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return read(in);
        }
    }

    /** One split into a stream other state shares (the continuous source's splits embed one). */
    public static void write(TableScanSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.splitId());
        BucketSelection bucket = split.bucket();
        out.writeBoolean(bucket != null);
        if (bucket != null) {
            out.writeUTF(bucket.column());
            out.writeInt(bucket.numBuckets());
            out.writeInt(bucket.bucket());
        }
        write(split.snapshot(), out);
        out.writeLong(split.rowsEmitted());
    }

    private static void write(TableSnapshot snapshot, DataOutputStream out) throws IOException {
        out.writeUTF(snapshot.mode().name());
        out.writeLong(snapshot.baseVersion());
        out.writeInt(snapshot.shards().size());
        for (PinnedShard shard : snapshot.shards()) {
            out.writeLong(shard.shardId().getMostSignificantBits());
            out.writeLong(shard.shardId().getLeastSignificantBits());
            out.writeLong(shard.manifestVersion());
            out.writeLong(shard.walThrough());
            out.writeInt(shard.bucket());
        }
    }

    private static TableSnapshot readSnapshot(DataInputStream in) throws IOException {
        ReadMode mode = ReadMode.valueOf(in.readUTF());
        long baseVersion = in.readLong();
        int n = in.readInt();
        List<PinnedShard> shards = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            UUID id = new UUID(in.readLong(), in.readLong());
            shards.add(new PinnedShard(id, in.readLong(), in.readLong(), in.readInt()));
        }
        return new TableSnapshot(mode, baseVersion, shards);
    }

    /** The split {@link #write(TableScanSplit, DataOutputStream)} wrote. */
    public static TableScanSplit read(DataInputStream in) throws IOException {
        String id = in.readUTF();
        BucketSelection bucket =
                in.readBoolean() ? new BucketSelection(in.readUTF(), in.readInt(), in.readInt()) : null;
        return new TableScanSplit(id, bucket, readSnapshot(in), in.readLong());
    }

    private static void requireVersion(int version) throws IOException {
        if (version == UNPINNED) {
            throw new IOException("this walsink scan split was checkpointed by a release before issue #19, whose"
                    + " splits did not pin a snapshot; resuming it could skip or repeat rows, so it is not"
                    + " restored: start the bounded scan again without this checkpoint");
        }
        if (version != VERSION) {
            throw new IOException("unknown walsink scan split version " + version + "; this build reads " + VERSION);
        }
    }

    /** The enumerator's checkpoint: the splits not yet assigned. */
    static final class Pending implements SimpleVersionedSerializer<List<TableScanSplit>> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(List<TableScanSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (TableScanSplit split : splits) {
                    write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<TableScanSplit> deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int n = in.readInt();
                List<TableScanSplit> splits = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    splits.add(read(in));
                }
                return splits;
            }
        }
    }
}
