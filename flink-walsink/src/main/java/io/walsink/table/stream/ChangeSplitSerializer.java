package io.walsink.table.stream;

import io.walsink.format.manifest.SsTable;
import io.walsink.table.scan.TableScanSplit;
import io.walsink.table.scan.TableScanSplitSerializer;
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
 * Continuous-read splits in checkpoints: the snapshot part as the bounded scan writes its splits,
 * then per shard its cursor. Lists of them are the enumerator's checkpoint. Versioned so that a
 * later layout can still read this one.
 */
final class ChangeSplitSerializer implements SimpleVersionedSerializer<ChangeSplit> {
    static final int VERSION = 2;
    /** Version 1 embedded the bounded scan's version 2 splits, whose row counts the streamed read cannot resume. */
    private static final int WHOLE_BUCKET_SNAPSHOT = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(ChangeSplit split) throws IOException {
        return bytes(out -> write(split, out));
    }

    @Override
    public ChangeSplit deserialize(int version, byte[] serialized) throws IOException {
        requireVersion(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return read(in);
        }
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] bytes(Writer writer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writer.write(out);
        }
        return bytes.toByteArray();
    }

    private static void write(ChangeSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.splitId());
        out.writeInt(split.bucket());
        out.writeBoolean(split.snapshot() != null);
        if (split.snapshot() != null) {
            TableScanSplitSerializer.write(split.snapshot(), out);
        }
        out.writeInt(split.shards().size());
        for (ShardCursor c : split.shards()) {
            out.writeLong(c.shardId().getMostSignificantBits());
            out.writeLong(c.shardId().getLeastSignificantBits());
            out.writeLong(c.manifestVersion());
            out.writeLong(c.emittedThrough());
            out.writeLong(c.rowsEmitted());
            out.writeInt(c.queued().size());
            for (SsTable t : c.queued()) {
                out.writeLong(t.generation());
                out.writeUTF(t.path());
            }
        }
    }

    private static ChangeSplit read(DataInputStream in) throws IOException {
        String id = in.readUTF();
        int bucket = in.readInt();
        TableScanSplit snapshot = in.readBoolean() ? TableScanSplitSerializer.read(in) : null;
        int n = in.readInt();
        List<ShardCursor> shards = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            UUID shard = new UUID(in.readLong(), in.readLong());
            long version = in.readLong();
            long through = in.readLong();
            long rows = in.readLong();
            int queued = in.readInt();
            List<SsTable> generations = new ArrayList<>(queued);
            for (int q = 0; q < queued; q++) {
                generations.add(SsTable.of(in.readLong(), in.readUTF()));
            }
            shards.add(new ShardCursor(shard, version, through, generations, rows));
        }
        return new ChangeSplit(id, snapshot, bucket, shards);
    }

    private static void requireVersion(int version) throws IOException {
        if (version == WHOLE_BUCKET_SNAPSHOT) {
            throw new IOException("this walsink continuous-read split was checkpointed by a release that read each"
                    + " bucket's snapshot whole, in key order; this release streams it in storage order, so its"
                    + " row count names other rows: start the continuous read again without this checkpoint");
        }
        if (version != VERSION) {
            throw new IOException(
                    "unknown walsink continuous-read split version " + version + "; this build reads " + VERSION);
        }
    }

    /** The enumerator's checkpoint: the splits not yet assigned. */
    static final class Pending implements SimpleVersionedSerializer<List<ChangeSplit>> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(List<ChangeSplit> splits) throws IOException {
            return bytes(out -> {
                out.writeInt(splits.size());
                for (ChangeSplit split : splits) {
                    write(split, out);
                }
            });
        }

        @Override
        public List<ChangeSplit> deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int n = in.readInt();
                List<ChangeSplit> splits = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    splits.add(read(in));
                }
                return splits;
            }
        }
    }
}
