package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.ByteArrayChannel;
import io.walsink.testing.AllocatorExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WalEntryCodecTest {
    private static final String LOCATION = "memory://_mem_wal/s/wal/x.arrow";

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final List<AutoCloseable> owned = new ArrayList<>();

    @AfterEach
    void closeOwned() throws Exception {
        AutoCloseables.close(owned); // before the extension checks for leaks
    }

    private VectorSchemaRoot batch(WalStorageSchema storage, long firstId, int rows) {
        VectorSchemaRoot root = AllTypesBatches.batch(storage.schema(), allocator, firstId, rows);
        owned.add(root);
        return root;
    }

    /** The entry a store writes where it goes (a local file) has the bytes {@code encode} returns, every writing. */
    @ParameterizedTest
    @EnumSource(WalSchemaProfile.class)
    void anEntryWrittenToAChannelIsTheEncodedEntry(WalSchemaProfile profile) throws Exception {
        WalStorageSchema storage = AllTypesBatches.storage(profile);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        List<VectorSchemaRoot> batches = List.of(batch(storage, 1, 7), batch(storage, 100, 0), batch(storage, 50, 4));
        byte[] encoded = codec.encode(3, 9, batches);
        WalEntryCodec.Entry entry = codec.entry(3, 9, batches);
        assertThat(entry.bytes()).isEqualTo(-1);
        for (int writing = 0; writing < 2; writing++) {
            ByteArrayChannel out = new ByteArrayChannel(16);
            entry.writeTo(out);
            assertThat(out.isOpen())
                    .as("the caller's channel is the caller's to close")
                    .isTrue();
            assertThat(out.toArray()).isEqualTo(encoded);
            assertThat(entry.bytes()).isEqualTo(encoded.length);
        }
    }

    @ParameterizedTest
    @EnumSource(WalSchemaProfile.class)
    void roundTripsEveryCommonTypeBatchByBatch(WalSchemaProfile profile) {
        WalStorageSchema storage = AllTypesBatches.storage(profile);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        VectorSchemaRoot first = batch(storage, 1, 7);
        VectorSchemaRoot empty = batch(storage, 100, 0);
        VectorSchemaRoot second = batch(storage, 50, 4);

        byte[] bytes = codec.encode(3, 9, List.of(first, empty, second));

        try (WalEntry entry = codec.decode(LOCATION, 12, bytes)) {
            assertThat(entry.position()).isEqualTo(12);
            assertThat(entry.writerEpoch()).isEqualTo(3);
            assertThat(entry.sentinel()).isFalse();
            assertThat(entry.rowCount()).isEqualTo(11);
            assertThat(entry.batches()).hasSize(2);
            assertSameRows(entry.batches().get(0), first);
            assertSameRows(entry.batches().get(1), second);
            if (profile == WalSchemaProfile.SPEC) {
                assertThat(entry.generation()).hasValue(9);
            } else {
                assertThat(entry.generation()).isEmpty();
            }
        }
    }

    @Test
    void specEntryCarriesEpochGenerationTableMetadataAndFieldIds() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        byte[] bytes = new WalEntryCodec(storage, allocator).encode(3, 9, List.of(batch(storage, 1, 2)));

        Schema written = ArrowStreams.schemaOf(allocator, bytes);

        assertThat(written.getCustomMetadata())
                .containsExactlyInAnyOrderEntriesOf(Map.of("owner", "tests", "writer_epoch", "3", "generation", "9"));
        assertThat(written.findField("dec").getMetadata()).containsEntry(WalStorageSchema.FIELD_ID, "6");
        assertThat(written.getFields().get(written.getFields().size() - 1).getName())
                .isEqualTo(WalStorageSchema.TOMBSTONE);
    }

    @Test
    void lanceJava70EntryHasNoGenerationNoFieldIdsNoTombstone() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.LANCE_JAVA_7_0);
        byte[] bytes = new WalEntryCodec(storage, allocator).encode(3, 9, List.of(batch(storage, 1, 2)));

        Schema written = ArrowStreams.schemaOf(allocator, bytes);

        assertThat(written.getCustomMetadata())
                .containsExactlyInAnyOrderEntriesOf(Map.of("owner", "tests", "writer_epoch", "3"));
        assertThat(written.getFields())
                .allSatisfy(f -> assertThat(f.getMetadata()).doesNotContainKey(WalStorageSchema.FIELD_ID));
        assertThat(written.getFields()).extracting(Field::getName).doesNotContain(WalStorageSchema.TOMBSTONE);
    }

    @Test
    void sentinelIsAnEmptySchemaWithEpochAndFlagAndNoBatches() {
        WalEntryCodec codec = new WalEntryCodec(AllTypesBatches.storage(WalSchemaProfile.SPEC), allocator);

        byte[] bytes = codec.encodeSentinel(5);

        Schema written = ArrowStreams.schemaOf(allocator, bytes);
        assertThat(written.getFields()).isEmpty();
        assertThat(written.getCustomMetadata())
                .containsExactlyInAnyOrderEntriesOf(Map.of("writer_epoch", "5", "fence_sentinel", "true"));
        try (WalEntry entry = codec.decode(LOCATION, 4, bytes)) {
            assertThat(entry.sentinel()).isTrue();
            assertThat(entry.writerEpoch()).isEqualTo(5);
            assertThat(entry.batches()).isEmpty();
            assertThat(entry.generation()).isEmpty();
        }
    }

    @Test
    void entryWithoutWriterEpochIsRejected() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        byte[] bytes = ArrowStreams.write(
                allocator, storage.schema(), Map.of("generation", "1"), List.of(batch(storage, 1, 2)));

        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).decode(LOCATION, 1, bytes))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining(LOCATION)
                .hasMessageContaining("no writer_epoch");
    }

    @Test
    void nonNumericEpochOrGenerationIsRejected() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        for (Map<String, String> metadata : List.of(
                Map.of("writer_epoch", "abc"),
                Map.of("writer_epoch", "-1"),
                Map.of("writer_epoch", "+1"),
                Map.of("writer_epoch", "99999999999999999999"),
                Map.of("writer_epoch", "1", "generation", "x"))) {
            byte[] bytes = ArrowStreams.write(allocator, storage.schema(), metadata, List.of(batch(storage, 1, 1)));

            assertThatThrownBy(() -> codec.decode(LOCATION, 1, bytes))
                    .as("metadata %s", metadata)
                    .isInstanceOf(CorruptWalEntryException.class)
                    .hasMessageContaining("not a decimal number");
        }
    }

    @Test
    void missingColumnIsRejectedNamingIt() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        List<Field> fields = new ArrayList<>(storage.schema().getFields());
        fields.removeIf(f -> f.getName().equals(WalStorageSchema.TOMBSTONE));

        assertMismatch(storage, new Schema(fields), WalStorageSchema.TOMBSTONE, "missing");
    }

    @Test
    void anEntryWrittenBeforeANullableColumnWasAddedDecodesWithItNull() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        List<Field> fields = new ArrayList<>(storage.schema().getFields());
        fields.removeIf(f -> f.getName().equals("dec"));
        Schema older = new Schema(fields);
        VectorSchemaRoot rows = VectorSchemaRoot.create(older, allocator);
        owned.add(rows);
        rows.allocateNew();
        BigIntVector ids = (BigIntVector) rows.getVector("id");
        BitVector tombstones = (BitVector) rows.getVector(WalStorageSchema.TOMBSTONE);
        for (int r = 0; r < 3; r++) {
            ids.setSafe(r, 10 + r);
            tombstones.setSafe(r, r == 1 ? 1 : 0);
        }
        rows.setRowCount(3);
        byte[] bytes = ArrowStreams.write(allocator, older, Map.of("writer_epoch", "1"), List.of(rows));

        try (WalEntry entry = new WalEntryCodec(storage, allocator).decode(LOCATION, 1, bytes)) {
            VectorSchemaRoot batch = entry.batches().get(0);
            assertThat(batch.getSchema().getFields()).isEqualTo(storage.schema().getFields());
            assertThat(batch.getRowCount()).isEqualTo(3);
            for (int r = 0; r < 3; r++) {
                assertThat(batch.getVector("dec").isNull(r)).isTrue();
                assertThat(((BigIntVector) batch.getVector("id")).get(r)).isEqualTo(10 + r);
                assertThat(((BitVector) batch.getVector(WalStorageSchema.TOMBSTONE)).get(r))
                        .isEqualTo(r == 1 ? 1 : 0);
            }
        }
        // Encoding stays strict: a writer writes the table's columns as they are now.
        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).encode(1, 1, List.of(rows)))
                .isInstanceOfSatisfying(WalSchemaMismatchException.class, e -> assertThat(e.column())
                        .isEqualTo("dec"));
    }

    @Test
    void wrongTypeIsRejectedNamingTheColumn() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        List<Field> fields = new ArrayList<>(storage.schema().getFields());
        fields.replaceAll(f -> f.getName().equals("i32") ? Field.nullable("i32", new ArrowType.Int(64, true)) : f);

        assertMismatch(storage, new Schema(fields), "i32", "expected Int(32, true)");
    }

    @Test
    void wrongNestedTypeIsRejectedNamingThePath() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        List<Field> fields = new ArrayList<>(storage.schema().getFields());
        fields.replaceAll(f -> f.getName().equals("tags")
                ? new Field("tags", f.getFieldType(), List.of(Field.nullable("item", ArrowType.Utf8.INSTANCE)))
                : f);

        assertMismatch(storage, new Schema(fields), "tags.item", "expected Int(32, true)");
    }

    @Test
    void extraColumnIsRejectedNamingIt() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        List<Field> fields = new ArrayList<>(storage.schema().getFields());
        fields.add(Field.nullable("surprise", ArrowType.Utf8.INSTANCE));

        assertMismatch(storage, new Schema(fields), "surprise", "not in the storage schema");
    }

    @Test
    void entryWithoutTombstoneDoesNotMatchTheSpecProfile() {
        WalStorageSchema spec = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        WalStorageSchema lance = AllTypesBatches.storage(WalSchemaProfile.LANCE_JAVA_7_0);

        assertMismatch(spec, lance.schema(), WalStorageSchema.TOMBSTONE, "missing");
    }

    private void assertMismatch(WalStorageSchema storage, Schema written, String column, String message) {
        VectorSchemaRoot rows = VectorSchemaRoot.create(written, allocator);
        owned.add(rows);
        rows.allocateNew();
        rows.setRowCount(3); // all null: only the shape matters here
        byte[] bytes = ArrowStreams.write(allocator, written, Map.of("writer_epoch", "1"), List.of(rows));

        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).decode(LOCATION, 1, bytes))
                .isInstanceOfSatisfying(WalSchemaMismatchException.class, e -> assertThat(e.column())
                        .isEqualTo(column))
                .hasMessageContaining(LOCATION)
                .hasMessageContaining(message);
        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).encode(1, 1, List.of(rows)))
                .isInstanceOfSatisfying(WalSchemaMismatchException.class, e -> assertThat(e.column())
                        .isEqualTo(column));
    }

    @Test
    void everyTruncationIsRejected() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        byte[] bytes = codec.encode(1, 1, List.of(batch(storage, 1, 5), batch(storage, 9, 3)));

        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> codec.decode(LOCATION, 1, truncated))
                    .as("truncated to %d of %d bytes", length, bytes.length)
                    .isInstanceOf(CorruptWalEntryException.class)
                    .hasMessageContaining(LOCATION);
        }
    }

    @Test
    void truncatedSentinelIsRejected() {
        WalEntryCodec codec = new WalEntryCodec(AllTypesBatches.storage(WalSchemaProfile.SPEC), allocator);
        byte[] bytes = codec.encodeSentinel(2);

        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> codec.decode(LOCATION, 1, truncated))
                    .as("truncated to %d of %d bytes", length, bytes.length)
                    .isInstanceOf(CorruptWalEntryException.class);
        }
    }

    @Test
    void garbageAndTrailingBytesAreRejected() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        byte[] bytes = codec.encode(1, 1, List.of(batch(storage, 1, 5)));
        byte[] trailing = Arrays.copyOf(bytes, bytes.length + 3);
        byte[] garbage = "definitely not arrow".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] corruptLength = bytes.clone();
        corruptLength[4] = 0x7f; // metadata length of the schema message

        for (byte[] bad : List.of(trailing, garbage, corruptLength)) {
            assertThatThrownBy(() -> codec.decode(LOCATION, 1, bad))
                    .isInstanceOf(CorruptWalEntryException.class)
                    .hasMessageContaining(LOCATION);
        }
    }

    @Test
    void tombstonesCannotBeWrittenInTheLanceJava70Profile() {
        WalStorageSchema lance = AllTypesBatches.storage(WalSchemaProfile.LANCE_JAVA_7_0);
        VectorSchemaRoot withTombstones = batch(AllTypesBatches.storage(WalSchemaProfile.SPEC), 1, 4);

        assertThatThrownBy(() -> new WalEntryCodec(lance, allocator).encode(1, 1, List.of(withTombstones)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("lance-java-7.0")
                .hasMessageContaining("deletes");
    }

    @Test
    void encodeRejectsEmptyEntriesAndNonPositiveCounters() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        WalEntryCodec codec = new WalEntryCodec(storage, allocator);
        VectorSchemaRoot rows = batch(storage, 1, 1);

        assertThatThrownBy(() -> codec.encode(1, 1, List.of(batch(storage, 1, 0))))
                .hasMessageContaining("at least one non-empty batch");
        assertThatThrownBy(() -> codec.encode(1, 1, List.of())).hasMessageContaining("at least one non-empty batch");
        assertThatThrownBy(() -> codec.encode(0, 1, List.of(rows))).hasMessageContaining("writer epoch");
        assertThatThrownBy(() -> codec.encode(1, 0, List.of(rows))).hasMessageContaining("generation");
        assertThatThrownBy(() -> codec.encodeSentinel(0)).hasMessageContaining("writer epoch");
    }

    @Test
    void encodeRejectsNullsInNotNullColumns() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        VectorSchemaRoot rows = batch(storage, 1, 3);
        ((org.apache.arrow.vector.BitVector) rows.getVector(WalStorageSchema.TOMBSTONE)).setNull(1);

        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).encode(1, 1, List.of(rows)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column '_tombstone' is NOT NULL but holds 1 nulls");
    }

    @Test
    void sentinelWithFieldsIsRejected() {
        WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
        Map<String, String> metadata = new LinkedHashMap<>(Map.of("writer_epoch", "2", "fence_sentinel", "true"));
        byte[] bytes = ArrowStreams.write(allocator, storage.schema(), metadata, List.of(batch(storage, 1, 1)));

        assertThatThrownBy(() -> new WalEntryCodec(storage, allocator).decode(LOCATION, 1, bytes))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining("fence sentinel with fields");
    }

    private static void assertSameRows(VectorSchemaRoot actual, VectorSchemaRoot expected) {
        assertThat(actual.getRowCount()).isEqualTo(expected.getRowCount());
        assertThat(Rows.of(actual)).isEqualTo(Rows.of(expected));
        for (int i = 0; i < expected.getFieldVectors().size(); i++) {
            assertThat(VectorEqualsVisitor.vectorEquals(actual.getVector(i), expected.getVector(i)))
                    .as("column %s", expected.getVector(i).getName())
                    .isTrue();
        }
    }
}
