package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.PrimaryKeyMetadata;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class WalStorageSchemaTest {
    private static final Map<String, String> KEY = Map.of(PrimaryKeyMetadata.PRIMARY_KEY, "true");
    private static final Schema TABLE = new Schema(
            List.of(
                    Field.notNullable("tenant", ArrowType.Utf8.INSTANCE),
                    new Field("id", new FieldType(false, new ArrowType.Int(64, true), null, KEY), null),
                    Field.notNullable("required_value", new ArrowType.Int(32, true)),
                    Field.nullable("note", ArrowType.Utf8.INSTANCE)),
            Map.of("owner", "tests"));
    private static final Map<String, Integer> IDS = Map.of("tenant", 0, "id", 1, "required_value", 2, "note", 3);

    @Test
    void specProfileAddsFieldIdsAndTrailingTombstone() {
        Schema schema = WalStorageSchema.derive(TABLE, List.of("id"), IDS, WalSchemaProfile.SPEC)
                .schema();

        assertThat(schema.getFields())
                .extracting(Field::getName)
                .containsExactly("tenant", "id", "required_value", "note", "_tombstone");
        assertThat(schema.getFields())
                .extracting(f -> f.getMetadata().get(WalStorageSchema.FIELD_ID))
                .containsExactly("0", "1", "2", "3", null);
        Field tombstone = schema.findField("_tombstone");
        assertThat(tombstone.getType()).isEqualTo(ArrowType.Bool.INSTANCE);
        assertThat(tombstone.isNullable()).isFalse();
        assertThat(schema.getCustomMetadata()).isEqualTo(Map.of("owner", "tests"));
    }

    @Test
    void specProfileMakesNonKeyFieldsNullable() {
        Schema schema = WalStorageSchema.derive(TABLE, List.of("id"), IDS, WalSchemaProfile.SPEC)
                .schema();

        assertThat(schema.findField("tenant").isNullable()).isTrue();
        assertThat(schema.findField("required_value").isNullable()).isTrue();
    }

    @Test
    void lanceJava70ProfileKeepsTableNullability() {
        Schema schema = WalStorageSchema.derive(TABLE, List.of("id"), IDS, WalSchemaProfile.LANCE_JAVA_7_0)
                .schema();

        assertThat(schema.findField("tenant").isNullable()).isFalse();
        assertThat(schema.findField("required_value").isNullable()).isFalse();
        assertThat(schema.findField("note").isNullable()).isTrue();
    }

    @Test
    void keyFieldsStayNonNullableWithKeyMetadata() {
        for (WalSchemaProfile profile : WalSchemaProfile.values()) {
            Schema schema =
                    WalStorageSchema.derive(TABLE, List.of("id"), IDS, profile).schema();

            assertThat(schema.findField("id").isNullable()).isFalse();
            assertThat(schema.findField("id").getMetadata())
                    .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY, "true")
                    .doesNotContainKey(PrimaryKeyMetadata.PRIMARY_KEY_POSITION);
            assertThat(schema.findField("tenant").getMetadata()).doesNotContainKey(PrimaryKeyMetadata.PRIMARY_KEY);
        }
    }

    @Test
    void compositeKeyFieldsCarryTheirPositions() {
        Schema schema = WalStorageSchema.derive(TABLE, List.of("id", "tenant"), IDS, WalSchemaProfile.SPEC)
                .schema();

        assertThat(schema.findField("id").getMetadata()).containsEntry(PrimaryKeyMetadata.PRIMARY_KEY_POSITION, "1");
        assertThat(schema.findField("tenant").getMetadata())
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY, "true")
                .containsEntry(PrimaryKeyMetadata.PRIMARY_KEY_POSITION, "2");
        assertThat(schema.findField("tenant").isNullable()).isFalse();
    }

    @Test
    void lanceJava70ProfileHasNoFieldIdsAndNoTombstone() {
        WalStorageSchema storage = WalStorageSchema.derive(TABLE, List.of("id"), IDS, WalSchemaProfile.LANCE_JAVA_7_0);

        assertThat(storage.schema().getFields())
                .extracting(Field::getName)
                .containsExactly("tenant", "id", "required_value", "note");
        assertThat(storage.schema().getFields())
                .allSatisfy(f -> assertThat(f.getMetadata()).doesNotContainKey(WalStorageSchema.FIELD_ID));
        assertThat(storage.hasTombstone()).isFalse();
        assertThatThrownBy(storage::requireDeletes)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("'lance-java-7.0'")
                .hasMessageContaining("'spec'");
    }

    @Test
    void rejectsTableColumnNamedLikeTheTombstoneAndUnknownKeys() {
        Schema clash = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("_tombstone", ArrowType.Bool.INSTANCE)));

        assertThatThrownBy(() -> WalStorageSchema.derive(
                        clash, List.of("id"), Map.of("id", 0, "_tombstone", 1), WalSchemaProfile.SPEC))
                .hasMessageContaining("_tombstone");
        assertThatThrownBy(() -> WalStorageSchema.derive(TABLE, List.of("nope"), IDS, WalSchemaProfile.SPEC))
                .hasMessageContaining("'nope'");
        assertThatThrownBy(() -> WalStorageSchema.derive(TABLE, List.of("id"), Map.of("id", 1), WalSchemaProfile.SPEC))
                .hasMessageContaining("no Lance field id for column 'tenant'");
    }

    @Test
    void profilesParseByNameAndUnknownNamesListTheValidOnes() {
        assertThat(WalSchemaProfile.parse("spec")).isEqualTo(WalSchemaProfile.SPEC);
        assertThat(WalSchemaProfile.parse("lance-java-7.0")).isEqualTo(WalSchemaProfile.LANCE_JAVA_7_0);
        assertThatThrownBy(() -> WalSchemaProfile.parse("lance-7"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown WAL schema profile 'lance-7'; valid: spec, lance-java-7.0");
    }
}
