package io.walsink.format.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.walsink.format.FormatException;
import io.walsink.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;

/**
 * Maintained-index declarations: kept in the schema metadata of a table lance-core creates and read
 * back, refused with the column or name at fault before anything is written, and listed in the
 * MemWAL index's details by a swap that keeps every other field as stored.
 */
class MaintainedIndexesTest {
    @TempDir
    Path dir;

    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("text", new ArrowType.Utf8()),
            new Field(
                    "emb",
                    FieldType.nullable(new ArrowType.FixedSizeList(8)),
                    List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))),
            new Field(
                    "half",
                    FieldType.nullable(new ArrowType.FixedSizeList(8)),
                    List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))))));

    private static final List<MaintainedIndex> INDEXES = List.of(
            MaintainedIndex.ivfPq("emb_idx", "emb", 4, 2).withMetric(MaintainedIndex.Metric.COSINE),
            MaintainedIndex.scalar("text_idx", "text", MaintainedIndex.Type.INVERTED),
            MaintainedIndex.scalar("id_idx", "id", MaintainedIndex.Type.BTREE));

    @Test
    void declarationsRoundTripThroughTheTablesSchemaMetadata() {
        String uri = dir.resolve("t").toString();

        create(uri, INDEXES.toArray(MaintainedIndex[]::new));
        TableInfo table = LanceTables.open(uri, Map.of());

        assertThat(MaintainedIndexes.of(table)).containsExactlyInAnyOrderElementsOf(INDEXES);
        assertThat(table.memWal().maintainedIndexes())
                .as("built on the empty base table and listed when the table is created")
                .containsExactlyInAnyOrder("emb_idx", "text_idx", "id_idx");
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            assertThat(base.countRows())
                    .as("the vector index's placeholder rows are deleted")
                    .isZero();
            assertThat(base.getIndexes().stream().map(Index::name)).contains("emb_idx", "text_idx", "id_idx");
            assertThat(base.getConfig()).containsEntry("walsink.index.emb_idx.trained-rows", "0");
        }
        MaintainedIndexes.checkDeclared(List.of(), table);
        MaintainedIndexes.checkDeclared(List.of(INDEXES.get(2), INDEXES.get(0), INDEXES.get(1)), table);
        assertThatThrownBy(() -> MaintainedIndexes.checkDeclared(INDEXES.subList(0, 1), table))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maintains indexes")
                .hasMessageContaining("fixed when the table is created");
    }

    @Test
    void everyTypeAndMetricRoundTripsThroughItsEncoding() {
        for (MaintainedIndex index : List.of(
                MaintainedIndex.ivfPq("a", "emb", 16, 8),
                MaintainedIndex.ivfHnswSq("b", "emb", 2).withMetric(MaintainedIndex.Metric.DOT),
                MaintainedIndex.ivfHnswSq("e", "emb", 2).withHnsw(32, 200),
                MaintainedIndex.ivfFlat("f", "emb", 4).withMetric(MaintainedIndex.Metric.COSINE),
                MaintainedIndex.scalar("c", "id", MaintainedIndex.Type.BITMAP),
                MaintainedIndex.scalar("d", "text", MaintainedIndex.Type.INVERTED))) {
            assertThat(MaintainedIndex.parse(index.name(), index.encode())).isEqualTo(index);
        }
    }

    @Test
    void badDeclarationsFailNamingTheirFaultAndCreateNothing() {
        String uri = dir.resolve("bad").toString();
        assertThatThrownBy(() -> create(uri, MaintainedIndex.ivfPq("v", "missing", 4, 2)))
                .hasMessageContaining("column 'missing' is not in the table's columns");
        assertThatThrownBy(() -> create(uri, MaintainedIndex.ivfPq("v", "text", 4, 2)))
                .hasMessageContaining("needs a vector column")
                .hasMessageContaining("column 'text' is Utf8");
        assertThatThrownBy(() -> create(uri, MaintainedIndex.ivfPq("v", "half", 4, 2)))
                .as("float16 vectors: lance-core 7.0.0's vector indexes take float32 and float64 here")
                .hasMessageContaining("needs a vector column");
        assertThatThrownBy(() -> create(uri, MaintainedIndex.scalar("t", "id", MaintainedIndex.Type.INVERTED)))
                .hasMessageContaining("needs a string column");
        assertThatThrownBy(() -> create(
                        uri,
                        MaintainedIndex.scalar("same", "id", MaintainedIndex.Type.BTREE),
                        MaintainedIndex.scalar("same", "text", MaintainedIndex.Type.INVERTED)))
                .hasMessageContaining("index 'same' is declared twice");
        assertThatThrownBy(() -> LanceTables.create(
                        uri,
                        SCHEMA,
                        List.of(),
                        TableSharding.unsharded(),
                        Map.of(),
                        List.of(MaintainedIndex.scalar("i", "id", MaintainedIndex.Type.BTREE)),
                        null))
                .hasMessageContaining("maintained indexes need a primary key");
        assertThatThrownBy(() -> LanceTables.create(
                        uri,
                        AppendRowKey.declare(SCHEMA),
                        List.of(AppendRowKey.COLUMN),
                        TableSharding.unsharded(),
                        Map.of(),
                        List.of(MaintainedIndex.scalar("i", "id", MaintainedIndex.Type.BTREE)),
                        null))
                .hasMessageContaining("does not take them yet");
        assertThatThrownBy(() -> LanceTables.open(uri, Map.of()))
                .as("nothing was created")
                .isInstanceOf(TableNotFoundException.class);
        assertThatThrownBy(() -> MaintainedIndex.ivfPq("__mem", "emb", 4, 2)).hasMessageContaining("must start with");
        assertThatThrownBy(() -> MaintainedIndex.ivfPq("v", "emb", 0, 2)).hasMessageContaining("num-partitions");
        assertThatThrownBy(() -> new MaintainedIndex("s", "id", MaintainedIndex.Type.BTREE, null, 4, 0))
                .hasMessageContaining("apply to vector indexes");
    }

    @Test
    void listingAnIndexKeepsTheOtherMemWalDetailsAsStored() {
        String uri = dir.resolve("listed").toString();
        LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.bucket("id", 2), Map.of(), List.of(), null);
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            var before = base.memWalIndexDetails().orElseThrow();
            base.createIndex(
                    List.of("id"),
                    IndexType.BTREE,
                    Optional.of("id_idx"),
                    IndexParams.builder()
                            .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                            .build(),
                    true);
            base.checkoutLatest();
            assertThatThrownBy(() -> MemWalMaintainedIndexes.add(base, "text_idx", uri))
                    .as("an index must exist before it is listed")
                    .hasMessageContaining("must exist");

            assertThat(MemWalMaintainedIndexes.add(base, "id_idx", uri)).isTrue();
            assertThat(MemWalMaintainedIndexes.add(base, "id_idx", uri))
                    .as("listed once")
                    .isFalse();

            var after = LanceTables.open(uri, Map.of()).memWal();
            assertThat(after.maintainedIndexes()).containsExactly("id_idx");
            assertThat(after.numShards()).isEqualTo(before.numShards());
            assertThat(after.shardingSpecs().toString())
                    .isEqualTo(before.shardingSpecs().toString());
            assertThat(after.writerConfigDefaults()).isEqualTo(before.writerConfigDefaults());
        }
    }

    @Test
    void theSwappedDetailsKeepMergeProgressByteForByte() throws Exception {
        UUID shard = UUID.fromString("4a388480-a25b-59a8-b058-24217f980256");
        byte[] any = any(compacted(shard, 7));

        byte[] listed = MemWalMaintainedIndexes.withName(any, "emb_idx", "test");

        assertThat(MergedGenerations.decodeAny(listed, "test")).containsExactly(Map.entry(shard, 7L));
        assertThat(MergedGenerations.decodeAny(any, "test")).isEqualTo(MergedGenerations.decodeAny(listed, "test"));
        assertThatThrownBy(() -> MemWalMaintainedIndexes.withName(new byte[] {8, 1}, "x", "here"))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining("here");
    }

    private void create(String uri, MaintainedIndex... indexes) {
        LanceTables.create(
                uri,
                SCHEMA,
                List.of("id"),
                TableSharding.bucket("id", 2),
                Map.of(),
                List.of(indexes),
                ObjectStores.open(uri, null));
    }

    /** MemWalIndexDetails with one compacted_sstables entry (field 9: shard_id = 1 {uuid = 1}, generation = 2). */
    private static byte[] compacted(UUID shard, long generation) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(16)
                .putLong(shard.getMostSignificantBits())
                .putLong(shard.getLeastSignificantBits());
        byte[] uuid = message(out -> out.writeBytes(1, ByteString.copyFrom(b.array())));
        byte[] entry = message(out -> {
            out.writeBytes(1, ByteString.copyFrom(uuid));
            out.writeUInt64(2, generation);
        });
        return message(out -> {
            out.writeUInt32(2, 2);
            out.writeBytes(9, ByteString.copyFrom(entry));
        });
    }

    private static byte[] any(byte[] details) throws Exception {
        return message(out -> {
            out.writeString(1, "type.googleapis.com/lance.table.MemWalIndexDetails");
            out.writeBytes(2, ByteString.copyFrom(details));
        });
    }

    private interface Fields {
        void write(CodedOutputStream out) throws Exception;
    }

    private static byte[] message(Fields fields) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        fields.write(out);
        out.flush();
        return bytes.toByteArray();
    }
}
