package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.shard.io.WrittenSsTable;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Bytes of a {@link ShardDescriptor} in checkpoints. The leading version lets a later release
 * read state written by this one; a change to the descriptor needs a new version here.
 *
 * <p>Version 2 adds the pinned manifest version after the published generation, version 3 the
 * base table version after it. Versions 1 and 2 (savepoints of earlier releases) are still read,
 * as an unpinned descriptor and one with an unknown base version.
 */
@Internal
public final class ShardDescriptorSerializer {
    public static final int VERSION = 3;
    private static final int UNPINNED = 1;
    private static final int WITHOUT_BASE_VERSION = 2;

    private ShardDescriptorSerializer() {}

    public static byte[] serialize(ShardDescriptor d) {
        ByteArrayOutputStream bytes =
                new ByteArrayOutputStream(64 + 48 * d.unpublished().size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(d.shardId().getMostSignificantBits());
            out.writeLong(d.shardId().getLeastSignificantBits());
            out.writeInt(d.bucket());
            out.writeLong(d.epoch());
            out.writeLong(d.replayAfter());
            out.writeLong(d.durablePosition());
            out.writeLong(d.currentGeneration());
            out.writeLong(d.publishedGeneration());
            out.writeLong(d.manifestVersion());
            out.writeLong(d.baseVersion());
            out.writeInt(d.unpublished().size());
            for (WrittenSsTable t : d.unpublished()) {
                out.writeLong(t.generation());
                out.writeUTF(t.path());
                out.writeLong(t.lastWalPosition());
                out.writeLong(t.physicalRows());
                out.writeLong(t.inMemoryBytes());
                out.writeLong(t.primaryKeyBytes());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static ShardDescriptor deserialize(byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            int version = in.readUnsignedByte();
            if (version < UNPINNED || version > VERSION) {
                throw new IllegalStateException("unsupported shard descriptor version " + version
                        + " (this release reads versions " + UNPINNED + " to " + VERSION + ")");
            }
            UUID shardId = new UUID(in.readLong(), in.readLong());
            int bucket = in.readInt();
            long epoch = in.readLong();
            long replayAfter = in.readLong();
            long durable = in.readLong();
            long generation = in.readLong();
            long published = in.readLong();
            long manifestVersion = version == UNPINNED ? 0 : in.readLong();
            long baseVersion = version <= WITHOUT_BASE_VERSION ? 0 : in.readLong();
            int count = in.readInt();
            if (count < 0 || count > 1_000_000) {
                throw new IllegalStateException("corrupt shard descriptor: " + count + " unpublished SSTables");
            }
            List<WrittenSsTable> unpublished = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                unpublished.add(new WrittenSsTable(
                        in.readLong(), in.readUTF(), in.readLong(), in.readLong(), in.readLong(), in.readLong()));
            }
            if (in.available() > 0) {
                throw new IllegalStateException("corrupt shard descriptor: " + in.available() + " trailing bytes");
            }
            return new ShardDescriptor(
                    shardId,
                    bucket,
                    epoch,
                    replayAfter,
                    durable,
                    generation,
                    published,
                    manifestVersion,
                    baseVersion,
                    unpublished);
        } catch (IOException e) {
            throw new IllegalStateException("corrupt shard descriptor: truncated (" + data.length + " bytes)", e);
        }
    }
}
