package io.walsink.table.scan;

import io.walsink.read.BucketSelection;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Splits as (id, bucket, rows emitted); lists of them as the enumerator's checkpoint. */
final class TableScanSplitSerializer implements SimpleVersionedSerializer<TableScanSplit> {
    private static final int VERSION = 1;

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

    private static void write(TableScanSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.splitId());
        BucketSelection bucket = split.bucket();
        out.writeBoolean(bucket != null);
        if (bucket != null) {
            out.writeUTF(bucket.column());
            out.writeInt(bucket.numBuckets());
            out.writeInt(bucket.bucket());
        }
        out.writeLong(split.rowsEmitted());
    }

    private static TableScanSplit read(DataInputStream in) throws IOException {
        String id = in.readUTF();
        BucketSelection bucket =
                in.readBoolean() ? new BucketSelection(in.readUTF(), in.readInt(), in.readInt()) : null;
        return new TableScanSplit(id, bucket, in.readLong());
    }

    private static void requireVersion(int version) throws IOException {
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
