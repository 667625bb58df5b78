package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class InputValidatorTest {
    private static final Field ID = new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null);
    private static final Field SCORE =
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
    private static final Field TAGS = new Field(
            "tags",
            FieldType.nullable(ArrowType.List.INSTANCE),
            List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    private static final Schema TABLE = new Schema(List.of(ID, SCORE, TAGS));
    private final InputValidator validator = new InputValidator(TABLE, List.of("id"));

    @Test
    void acceptsTheTableSchemaWithDifferentNullabilityOfValues() {
        Field score = new Field(
                "score", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
        assertThatCode(() -> validator.checkSchema(new Schema(List.of(ID, score, TAGS))))
                .doesNotThrowAnyException();
    }

    @Test
    void missingColumnIsNamed() {
        assertThatThrownBy(() -> validator.checkSchema(new Schema(List.of(ID, TAGS))))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("'score'")
                .hasMessageContaining("missing");
    }

    @Test
    void wrongTypeIsNamed() {
        Field score = new Field("score", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        assertThatThrownBy(() -> validator.checkSchema(new Schema(List.of(ID, score, TAGS))))
                .hasMessageContaining("'score'")
                .hasMessageContaining("does not match");
    }

    @Test
    void wrongNestedTypeIsNamed() {
        Field tags = new Field(
                "tags",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        assertThatThrownBy(() -> validator.checkSchema(new Schema(List.of(ID, SCORE, tags))))
                .hasMessageContaining("'tags'")
                .hasMessageContaining("child item");
    }

    @Test
    void unknownExtraColumnIsNamed() {
        Field extra = new Field("extra", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        assertThatThrownBy(() -> validator.checkSchema(new Schema(List.of(ID, SCORE, TAGS, extra))))
                .hasMessageContaining("'extra'")
                .hasMessageContaining("unknown column");
    }

    @Test
    void nullKeyIsNamedWithItsRow() {
        Field nullableId = new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root =
                        VectorSchemaRoot.create(new Schema(List.of(nullableId, SCORE, TAGS)), allocator)) {
            BigIntVector id = (BigIntVector) root.getVector(0);
            id.setSafe(0, 1);
            id.setNull(1);
            root.setRowCount(2);
            assertThatCode(() -> validator.checkKeysNotNull(root, 0, 1)).doesNotThrowAnyException();
            assertThatThrownBy(() -> validator.checkKeysNotNull(root, 0, 2))
                    .hasMessageContaining("'id'")
                    .hasMessageContaining("row 1");
        }
    }

    @Test
    void keyNotInTableIsRefused() {
        assertThatThrownBy(() -> new InputValidator(TABLE, List.of("uid"))).hasMessageContaining("'uid'");
    }
}
