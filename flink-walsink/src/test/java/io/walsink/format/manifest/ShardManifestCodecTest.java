package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShardManifestCodecTest {
    private static final UUID SHARD = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    private static final String WHERE = "memory://_mem_wal/x/manifest/1.binpb";

    @Test
    void claimOfNewShardEncodesExactlyLikeLance() {
        ShardManifest claim = ShardManifest.builder()
                .version(1)
                .writerEpoch(1)
                .currentGeneration(1)
                .shardId(SHARD)
                .build();

        assertThat(hex(ShardManifestCodec.encode(claim)))
                .isEqualTo("0801" + "1001" + "3001" + "5a12" + "0a10" + "0f1e2d3c4b5a69788796a5b4c3d2e1f0");
    }

    @Test
    void defaultManifestIsEmptyOnTheWireAndBack() {
        ShardManifest empty = ShardManifest.builder().build();

        assertThat(ShardManifestCodec.encode(empty)).isEmpty();
        assertThat(ShardManifestCodec.decode(new byte[0], WHERE)).isEqualTo(empty);
    }

    @Test
    void optionalSsTableFieldsAreWrittenWhenZeroAndOmittedWhenAbsent() {
        ShardManifest withZeros = ShardManifest.builder()
                .addSstable(SsTable.of(1, "a")
                        .withInMemoryBytes(0)
                        .withPhysicalRows(0)
                        .withPrimaryKeyBytes(0))
                .build();
        ShardManifest withoutAccounting =
                ShardManifest.builder().addSstable(SsTable.of(1, "a")).build();

        // field 8 len 11: generation=1, path="a", then tags 3,4,5 with value 0
        assertThat(hex(ShardManifestCodec.encode(withZeros)))
                .isEqualTo("420b" + "0801" + "120161" + "1800" + "2000" + "2800");
        assertThat(hex(ShardManifestCodec.encode(withoutAccounting))).isEqualTo("4205" + "0801" + "120161");
        assertThat(ShardManifestCodec.decode(ShardManifestCodec.encode(withZeros), WHERE))
                .isEqualTo(withZeros);
        assertThat(ShardManifestCodec.decode(ShardManifestCodec.encode(withoutAccounting), WHERE)
                        .sstables()
                        .get(0)
                        .inMemoryBytes())
                .isEmpty();
    }

    @Test
    void everyFieldRoundTripsInAscendingTagOrder() throws IOException {
        ShardManifest full = fullManifest();

        byte[] bytes = ShardManifestCodec.encode(full);

        assertThat(ShardManifestCodec.decode(bytes, WHERE)).isEqualTo(full);
        assertThat(topLevelFieldNumbers(bytes)).containsExactly(1, 2, 3, 4, 6, 8, 8, 10, 11, 14, 14, 15);
    }

    @Test
    void sealedStatusIsTheLastField() {
        byte[] bytes = ShardManifestCodec.encode(
                ShardManifest.builder().status(ShardStatus.SEALED).build());

        assertThat(hex(bytes)).isEqualTo("7801");
    }

    @Test
    void bucketFieldEntryIsFourLittleEndianBytes() {
        ShardManifest m = ShardManifest.builder()
                .shardSpecId(1)
                .addShardFieldEntry(ShardFieldEntry.bucket(3))
                .build();

        // spec id 1; entry {field_id "bucket", value 03 00 00 00}
        assertThat(hex(ShardManifestCodec.encode(m)))
                .isEqualTo("5001" + "720e" + "0a06" + hex("bucket".getBytes()) + "1204" + "03000000");
        assertThat(ShardFieldEntry.bucket(0x01020304).int32Value()).hasValue(0x01020304);
    }

    @Test
    void unknownFieldsAreSkippedAtEveryLevel() throws IOException {
        ShardManifest full = fullManifest();
        byte[] known = ShardManifestCodec.encode(full);
        ByteArrayOutputStream withUnknown = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(withUnknown);
        out.writeUInt64(7, 42); // the retired field
        out.writeFixed32(12, 7);
        out.writeFixed64(13, 7);
        out.writeString(99, "from a newer Lance");
        out.flush();
        withUnknown.write(known);
        // An SSTable and a shard id carrying fields this build does not know.
        out.writeByteArray(8, ssTableWithUnknownFields());
        out.writeByteArray(11, uuidWithUnknownField());
        out.flush();

        ShardManifest decoded = ShardManifestCodec.decode(withUnknown.toByteArray(), WHERE);

        List<SsTable> expectedTables = new ArrayList<>(full.sstables());
        expectedTables.add(SsTable.of(5, "later_gen_5"));
        assertThat(decoded).isEqualTo(full.toBuilder().sstables(expectedTables).build());
    }

    @Test
    void truncatedBytesNameTheObject() {
        byte[] bytes = ShardManifestCodec.encode(fullManifest());

        for (int cut = 1; cut < bytes.length; cut++) {
            byte[] truncated = Arrays.copyOf(bytes, cut);
            try {
                ShardManifestCodec.decode(truncated, WHERE);
                // A cut at a field boundary is a valid (shorter) message; no other cut may decode.
                assertThat(isFieldBoundary(bytes, cut))
                        .as("cut at %d decoded", cut)
                        .isTrue();
            } catch (CorruptManifestException e) {
                assertThat(e.location()).isEqualTo(WHERE);
                assertThat(e).hasMessageStartingWith(WHERE);
            }
        }
    }

    @Test
    void garbageIsRejected() {
        assertCorrupt("ffffffffffffffffffffff", "ShardManifest");
        assertCorrupt("0f", "wire type"); // wire type 7 does not exist
    }

    @Test
    void knownFieldWithWrongWireTypeIsRejected() {
        assertCorrupt("0a0101", "wire type"); // version as length-delimited
        assertCorrupt("5801", "wire type"); // shard_id as a varint
    }

    @Test
    void shardIdOfWrongLengthIsRejected() {
        assertCorrupt("5a050a03010203", "16 bytes");
        assertCorrupt("5a00", "16 bytes");
    }

    @Test
    void unknownStatusIsRejectedRatherThanTreatedAsActive() {
        assertCorrupt("7807", "unknown shard status 7");
    }

    @Test
    void invalidUtf8PathIsRejected() {
        assertCorrupt("4204" + "1202c328", "ShardManifest");
    }

    @Test
    void valuesBeyondSignedRangeAreRejected() {
        assertCorrupt("08ffffffffffffffffff01", "version");
    }

    private static void assertCorrupt(String hexBytes, String messagePart) {
        assertThatThrownBy(() -> ShardManifestCodec.decode(HexFormat.of().parseHex(hexBytes), WHERE))
                .isInstanceOf(CorruptManifestException.class)
                .hasMessageStartingWith(WHERE)
                .hasMessageContaining(messagePart)
                .extracting(e -> ((CorruptManifestException) e).location())
                .isEqualTo(WHERE);
    }

    static ShardManifest fullManifest() {
        return ShardManifest.builder()
                .version(7)
                .writerEpoch(3)
                .replayAfterWalEntryPosition(40)
                .walEntryPositionLastSeen(300)
                .currentGeneration(4)
                .addSstable(new SsTable(
                        2, "1a2b3c4d_gen_2", OptionalLong.of(1 << 20), OptionalLong.of(0), OptionalLong.empty()))
                .addSstable(SsTable.of(3, "deadbeef_gen_3").withPrimaryKeyBytes(Long.MAX_VALUE))
                .shardSpecId(1)
                .shardId(SHARD)
                .addShardFieldEntry(ShardFieldEntry.bucket(5))
                .addShardFieldEntry(new ShardFieldEntry("region", "eu".getBytes()))
                .status(ShardStatus.SEALED)
                .build();
    }

    private static List<Integer> topLevelFieldNumbers(byte[] bytes) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        List<Integer> fields = new ArrayList<>();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            fields.add(WireFormat.getTagFieldNumber(tag));
            in.skipField(tag);
        }
        return fields;
    }

    private static boolean isFieldBoundary(byte[] bytes, int offset) {
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes);
            while (in.getTotalBytesRead() < offset) {
                in.skipField(in.readTag());
            }
            return in.getTotalBytesRead() == offset;
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] ssTableWithUnknownFields() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt64(1, 5);
        out.writeFixed64(9, 1);
        out.writeString(2, "later_gen_5");
        out.writeString(6, "a newer accounting field");
        out.flush();
        return bytes.toByteArray();
    }

    private static byte[] uuidWithUnknownField() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt64(2, 9);
        out.writeByteArray(1, HexFormat.of().parseHex(SHARD.toString().replace("-", "")));
        out.flush();
        return bytes.toByteArray();
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
