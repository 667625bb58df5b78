package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.ReadMode;
import io.walsink.read.scan.ScanPosition;
import io.walsink.read.scan.SnapshotPart;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.TableSnapshot;
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
 * Splits as (id, part, pinned snapshot, position); lists of them as the enumerator's checkpoint.
 * Version 1 splits (of earlier releases) carry no snapshot: a row count is only exact within the
 * snapshot it was counted in, so they are refused rather than resumed inexactly. Version 2 splits
 * count rows of a bucket merged whole in key order, which the streamed read (version 3) does not
 * emit in that order: refused for the same reason.
 */
@Internal
public final class TableScanSplitSerializer implements SimpleVersionedSerializer<TableScanSplit> {
    private static final int VERSION = 3;
    private static final int UNPINNED = 1;
    private static final int MERGED_WHOLE = 2;

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
        SnapshotPart part = split.part();
        BucketSelection bucket = part.bucket();
        out.writeBoolean(bucket != null);
        if (bucket != null) {
            out.writeUTF(bucket.column());
            out.writeInt(bucket.numBuckets());
            out.writeInt(bucket.bucket());
        }
        List<Integer> fragments = part.baseFragments();
        out.writeInt(fragments == null ? -1 : fragments.size());
        if (fragments != null) {
            for (int fragment : fragments) {
                out.writeInt(fragment);
            }
        }
        out.writeBoolean(part.unmerged());
        write(split.snapshot(), out);
        ScanPosition position = split.position();
        out.writeInt(position.fragment());
        out.writeLong(position.row());
        out.writeLong(position.emitted());
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
        int n = in.readInt();
        List<Integer> fragments = null;
        if (n >= 0) {
            fragments = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                fragments.add(in.readInt());
            }
        }
        SnapshotPart part = new SnapshotPart(bucket, fragments, in.readBoolean());
        TableSnapshot snapshot = readSnapshot(in);
        ScanPosition position = new ScanPosition(in.readInt(), in.readLong(), in.readLong());
        return new TableScanSplit(id, snapshot, part, position);
    }

    private static void requireVersion(int version) throws IOException {
        if (version == UNPINNED) {
            throw new IOException("this walsink scan split was checkpointed by an earlier release whose"
                    + " splits did not pin a snapshot; resuming it could skip or repeat rows, so it is not"
                    + " restored: start the bounded scan again without this checkpoint");
        }
        if (version == MERGED_WHOLE) {
            throw new IOException("this walsink scan split was checkpointed by a release that read each bucket"
                    + " whole, in key order; this release streams the base table in storage order, so its row"
                    + " count names other rows: start the bounded scan again without this checkpoint");
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
