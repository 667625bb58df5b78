package io.walsink.format.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
import org.lance.WriteParams;

class LanceTablesTest {
    @TempDir
    Path dir;

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Field.nullable("region", new ArrowType.Utf8()),
                    Field.nullable("id", new ArrowType.Int(64, true)),
                    Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
            Map.of("owner", "tests"));

    @Test
    void createsBucketShardedTableAndReadsItBack() {
        String uri = dir.resolve("t").toString();

        TableInfo created = LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        TableInfo info = LanceTables.open(uri, Map.of());

        assertThat(info).usingRecursiveComparison().isEqualTo(created);
        assertThat(info.primaryKey()).containsExactly("id");
        assertThat(info.fieldIds()).containsExactly(Map.entry("region", 0), Map.entry("id", 1), Map.entry("score", 2));
        assertThat(info.fieldId("score")).isEqualTo(2);
        assertThat(info.schema().getCustomMetadata()).containsEntry("owner", "tests");
        Field id = info.schema().findField("id");
        assertThat(id.isNullable()).isFalse();
        assertThat(id.getMetadata())
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY, "true")
                .doesNotContainKey(PrimaryKeyMetadata.PRIMARY_KEY_POSITION);
        assertThat(info.schema().findField("region").isNullable()).isTrue();
        assertThat(info.sharding()).isEqualTo(new ShardingSpec(1, "bucket", "int32", TableSharding.bucket("id", 4)));
        assertThat(info.memWal().numShards()).isEqualTo(4);
    }

    @Test
    void compositeKeyIsReportedInKeyPositionOrderNotTableOrder() {
        String uri = dir.resolve("t").toString();

        TableInfo info =
                LanceTables.create(uri, SCHEMA, List.of("id", "region"), TableSharding.bucket("region", 2), Map.of());

        assertThat(info.primaryKey()).containsExactly("id", "region");
        assertThat(info.schema().findField("id").getMetadata())
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY_POSITION, "1");
        assertThat(info.schema().findField("region").getMetadata())
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY_POSITION, "2");
        assertThat(info.sharding().sharding()).isEqualTo(TableSharding.bucket("region", 2));
    }

    @Test
    void createsUnshardedTable() {
        String uri = dir.resolve("t").toString();

        TableInfo info = LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.unsharded(), Map.of());

        assertThat(info.sharding().sharding()).isEqualTo(TableSharding.unsharded());
        assertThat(info.sharding().sharding().shardCount()).hasValue(1);
    }

    @Test
    void bucketCountOutsideRangeIsRejectedNamingTheValue() {
        assertThatThrownBy(() -> TableSharding.bucket("id", 0)).hasMessageContaining("got 0");
        assertThatThrownBy(() -> TableSharding.bucket("id", 1025))
                .hasMessageContaining("got 1025")
                .hasMessageContaining("[1, 1024]");
        assertThat(TableSharding.bucket("id", 1).shardCount()).hasValue(1);
        assertThat(TableSharding.bucket("id", 1024).shardCount()).hasValue(1024);
    }

    @Test
    void rejectsShardingOnANonKeyColumnAndUnknownKeyColumns() {
        String uri = dir.resolve("t").toString();

        assertThatThrownBy(() ->
                        LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.bucket("score", 2), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'score'");
        assertThatThrownBy(() -> LanceTables.create(uri, SCHEMA, List.of("nope"), TableSharding.unsharded(), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'nope'");
        // an append table may be bucket-sharded on any column, but on a column it has
        assertThatThrownBy(() -> LanceTables.create(uri, SCHEMA, List.of(), TableSharding.bucket("nope", 2), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket column 'nope' is not a column");
        assertThat(dir.resolve("t")).doesNotExist();
    }

    @Test
    void anAppendTableIsShardedOnAnyColumnOrRoundRobinOverTheShardsItDeclares() {
        TableInfo byColumn = LanceTables.create(
                dir.resolve("a").toString(), SCHEMA, List.of(), TableSharding.bucket("score", 4), Map.of());
        assertThat(byColumn.primaryKey()).isEmpty();
        assertThat(byColumn.sharding().sharding()).isEqualTo(TableSharding.bucket("score", 4));
        assertThat(AppendShards.of(byColumn)).isEqualTo(1);

        TableInfo roundRobin = LanceTables.create(
                dir.resolve("b").toString(),
                AppendShards.declare(SCHEMA, 4),
                List.of(),
                TableSharding.unsharded(),
                Map.of());
        assertThat(AppendShards.of(roundRobin)).isEqualTo(4);
        assertThat(AppendShards.of(LanceTables.create(
                        dir.resolve("c").toString(), SCHEMA, List.of(), TableSharding.unsharded(), Map.of())))
                .isEqualTo(1);
        assertThatThrownBy(() -> AppendShards.declare(SCHEMA, 0)).hasMessageContaining("[1, 1024], got 0");
    }

    @Test
    void aTableWithoutKeyIsAppendOnlyAndOpensOnlyWhenThatIsAllowed() {
        String uri = dir.resolve("log").toString();
        TableInfo created = LanceTables.create(uri, SCHEMA, List.of(), TableSharding.unsharded(), Map.of());
        assertThat(created.primaryKey()).isEmpty();
        assertThatThrownBy(() -> LanceTables.open(uri, Map.of())).isInstanceOf(MissingPrimaryKeyException.class);
        assertThat(LanceTables.open(uri, Map.of(), true).primaryKey()).isEmpty();
    }

    @Test
    void openingAPathWithoutATableFails() {
        String uri = dir.resolve("missing").toString();

        assertThatThrownBy(() -> LanceTables.open(uri, Map.of()))
                .isInstanceOf(TableNotFoundException.class)
                .hasMessageContaining(uri);
    }

    @Test
    void openingATableWithoutPrimaryKeyFails() {
        String uri = dir.resolve("t").toString();
        createPlainLanceTable(uri, SCHEMA);

        assertThatThrownBy(() -> LanceTables.open(uri, Map.of()))
                .isInstanceOf(MissingPrimaryKeyException.class)
                .hasMessageContaining("has no primary key");
    }

    @Test
    void openingATableWithoutMemWalIndexFails() {
        String uri = dir.resolve("t").toString();
        createPlainLanceTable(uri, LanceTables.withPrimaryKey(SCHEMA, List.of("id")));

        assertThatThrownBy(() -> LanceTables.open(uri, Map.of()))
                .isInstanceOf(MissingMemWalIndexException.class)
                .hasMessageContaining("table at " + uri + " has no MemWAL index; create it with");
    }

    @Test
    void keyColumnsBecomeNonNullableAndKeepOtherMetadata() {
        Schema input = new Schema(List.of(
                new Field("k", new FieldType(true, new ArrowType.Int(32, true), null, Map.of("doc", "key")), null),
                Field.nullable("v", new ArrowType.Utf8())));

        Schema keyed = LanceTables.withPrimaryKey(input, List.of("k"));

        assertThat(keyed.findField("k").isNullable()).isFalse();
        assertThat(keyed.findField("k").getMetadata())
                .containsEntry("doc", "key")
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY, "true");
        assertThat(keyed.findField("v")).isEqualTo(input.findField("v"));
    }

    private static void createPlainLanceTable(String uri, Schema schema) {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = Dataset.create(allocator, uri, schema, new WriteParams.Builder().build())) {
            assertThat(ds.countRows()).isZero();
        }
    }
}
