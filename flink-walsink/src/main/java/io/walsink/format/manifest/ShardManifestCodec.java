package io.walsink.format.manifest;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.walsink.annotation.Internal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Wire codec of {@code lance.table.ShardManifest} (proto3), written by hand so the bytes are
 * visibly the contract: default values omitted, fields in ascending tag order, {@code optional}
 * fields written whenever present. Decoding skips fields it does not know (newer writers, the
 * retired field 7) and rejects anything malformed with a {@link CorruptManifestException}.
 */
@Internal
public final class ShardManifestCodec {
    // ShardManifest
    private static final int VERSION = 1;
    private static final int WRITER_EPOCH = 2;
    private static final int REPLAY_AFTER = 3;
    private static final int LAST_SEEN = 4;
    private static final int CURRENT_GENERATION = 6;
    private static final int SSTABLES = 8;
    private static final int SHARD_SPEC_ID = 10;
    private static final int SHARD_ID = 11;
    private static final int SHARD_FIELD_ENTRIES = 14;
    private static final int STATUS = 15;
    // SsTable
    private static final int SST_GENERATION = 1;
    private static final int SST_PATH = 2;
    private static final int SST_IN_MEMORY_BYTES = 3;
    private static final int SST_PHYSICAL_ROWS = 4;
    private static final int SST_PRIMARY_KEY_BYTES = 5;
    // UUID
    private static final int UUID_BYTES = 1;
    // ShardFieldEntry
    private static final int ENTRY_FIELD_ID = 1;
    private static final int ENTRY_VALUE = 2;

    private ShardManifestCodec() {}

    public static byte[] encode(ShardManifest m) {
        return serialize(out -> {
            writeUInt64(out, VERSION, m.version());
            writeUInt64(out, WRITER_EPOCH, m.writerEpoch());
            writeUInt64(out, REPLAY_AFTER, m.replayAfterWalEntryPosition());
            writeUInt64(out, LAST_SEEN, m.walEntryPositionLastSeen());
            writeUInt64(out, CURRENT_GENERATION, m.currentGeneration());
            for (SsTable t : m.sstables()) {
                out.writeByteArray(SSTABLES, encodeSsTable(t));
            }
            if (m.shardSpecId() != 0) {
                out.writeUInt32(SHARD_SPEC_ID, m.shardSpecId());
            }
            if (m.shardId() != null) {
                out.writeByteArray(SHARD_ID, encodeUuid(m.shardId()));
            }
            for (ShardFieldEntry e : m.shardFieldEntries()) {
                out.writeByteArray(SHARD_FIELD_ENTRIES, encodeFieldEntry(e));
            }
            if (m.status() != ShardStatus.ACTIVE) {
                out.writeEnum(STATUS, m.status().number());
            }
        });
    }

    /**
     * @param location the object the bytes came from, named in errors
     * @throws CorruptManifestException if the bytes are not a valid ShardManifest
     */
    public static ShardManifest decode(byte[] bytes, String location) {
        try {
            return decodeManifest(CodedInputStream.newInstance(bytes), location);
        } catch (IOException | IllegalArgumentException e) {
            throw new CorruptManifestException(location, "not a valid ShardManifest: " + e.getMessage(), e);
        }
    }

    private static ShardManifest decodeManifest(CodedInputStream in, String location) throws IOException {
        ShardManifest.Builder b = ShardManifest.builder();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case VERSION -> b.version(readUInt64(in, tag, location));
                case WRITER_EPOCH -> b.writerEpoch(readUInt64(in, tag, location));
                case REPLAY_AFTER -> b.replayAfterWalEntryPosition(readUInt64(in, tag, location));
                case LAST_SEEN -> b.walEntryPositionLastSeen(readUInt64(in, tag, location));
                case CURRENT_GENERATION -> b.currentGeneration(readUInt64(in, tag, location));
                case SSTABLES -> b.addSstable(decodeSsTable(readMessage(in, tag, location), location));
                case SHARD_SPEC_ID -> {
                    expectWireType(tag, WireFormat.WIRETYPE_VARINT, location);
                    b.shardSpecId(in.readUInt32());
                }
                case SHARD_ID -> b.shardId(decodeUuid(readMessage(in, tag, location), location));
                case SHARD_FIELD_ENTRIES -> b.addShardFieldEntry(
                        decodeFieldEntry(readMessage(in, tag, location), location));
                case STATUS -> {
                    expectWireType(tag, WireFormat.WIRETYPE_VARINT, location);
                    int number = in.readEnum();
                    ShardStatus status = ShardStatus.forNumber(number);
                    if (status == null) {
                        // Treating an unknown state as ACTIVE could let a writer claim a shard a
                        // newer Lance has closed; refuse instead.
                        throw new CorruptManifestException(location, "unknown shard status " + number);
                    }
                    b.status(status);
                }
                default -> in.skipField(tag);
            }
        }
        return b.build();
    }

    private static byte[] encodeSsTable(SsTable t) {
        return serialize(out -> {
            writeUInt64(out, SST_GENERATION, t.generation());
            if (!t.path().isEmpty()) {
                out.writeString(SST_PATH, t.path());
            }
            writeOptional(out, SST_IN_MEMORY_BYTES, t.inMemoryBytes());
            writeOptional(out, SST_PHYSICAL_ROWS, t.physicalRows());
            writeOptional(out, SST_PRIMARY_KEY_BYTES, t.primaryKeyBytes());
        });
    }

    private static SsTable decodeSsTable(CodedInputStream in, String location) throws IOException {
        long generation = 0;
        String path = "";
        OptionalLong inMemory = OptionalLong.empty();
        OptionalLong rows = OptionalLong.empty();
        OptionalLong pkBytes = OptionalLong.empty();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case SST_GENERATION -> generation = readUInt64(in, tag, location);
                case SST_PATH -> path = readString(in, tag, location);
                case SST_IN_MEMORY_BYTES -> inMemory = OptionalLong.of(readUInt64(in, tag, location));
                case SST_PHYSICAL_ROWS -> rows = OptionalLong.of(readUInt64(in, tag, location));
                case SST_PRIMARY_KEY_BYTES -> pkBytes = OptionalLong.of(readUInt64(in, tag, location));
                default -> in.skipField(tag);
            }
        }
        return new SsTable(generation, path, inMemory, rows, pkBytes);
    }

    private static byte[] encodeUuid(UUID id) {
        byte[] raw = ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits())
                .array();
        return serialize(out -> out.writeByteArray(UUID_BYTES, raw));
    }

    private static UUID decodeUuid(CodedInputStream in, String location) throws IOException {
        byte[] raw = new byte[0];
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == UUID_BYTES) {
                expectWireType(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, location);
                raw = in.readByteArray();
            } else {
                in.skipField(tag);
            }
        }
        if (raw.length != 16) {
            throw new CorruptManifestException(location, "shard_id must hold 16 bytes, found " + raw.length);
        }
        ByteBuffer buf = ByteBuffer.wrap(raw);
        return new UUID(buf.getLong(), buf.getLong());
    }

    private static byte[] encodeFieldEntry(ShardFieldEntry e) {
        return serialize(out -> {
            if (!e.fieldId().isEmpty()) {
                out.writeString(ENTRY_FIELD_ID, e.fieldId());
            }
            byte[] value = e.value();
            if (value.length > 0) {
                out.writeByteArray(ENTRY_VALUE, value);
            }
        });
    }

    private static ShardFieldEntry decodeFieldEntry(CodedInputStream in, String location) throws IOException {
        String fieldId = "";
        byte[] value = new byte[0];
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case ENTRY_FIELD_ID -> fieldId = readString(in, tag, location);
                case ENTRY_VALUE -> {
                    expectWireType(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, location);
                    value = in.readByteArray();
                }
                default -> in.skipField(tag);
            }
        }
        return new ShardFieldEntry(fieldId, value);
    }

    private static void writeUInt64(CodedOutputStream out, int field, long v) throws IOException {
        if (v != 0) {
            out.writeUInt64(field, v);
        }
    }

    private static void writeOptional(CodedOutputStream out, int field, OptionalLong v) throws IOException {
        if (v.isPresent()) {
            out.writeUInt64(field, v.getAsLong());
        }
    }

    private static long readUInt64(CodedInputStream in, int tag, String location) throws IOException {
        expectWireType(tag, WireFormat.WIRETYPE_VARINT, location);
        return in.readUInt64();
    }

    private static String readString(CodedInputStream in, int tag, String location) throws IOException {
        expectWireType(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, location);
        return in.readStringRequireUtf8();
    }

    private static CodedInputStream readMessage(CodedInputStream in, int tag, String location) throws IOException {
        expectWireType(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, location);
        ByteString body = in.readBytes();
        return body.newCodedInput();
    }

    // A known field with another wire type is not a schema evolution Lance allows: corruption.
    private static void expectWireType(int tag, int wireType, String location) {
        if (WireFormat.getTagWireType(tag) != wireType) {
            throw new CorruptManifestException(
                    location,
                    "field " + WireFormat.getTagFieldNumber(tag) + " has wire type " + WireFormat.getTagWireType(tag)
                            + ", expected " + wireType);
        }
    }

    private interface Body {
        void writeTo(CodedOutputStream out) throws IOException;
    }

    private static byte[] serialize(Body body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            body.writeTo(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
    }
}
