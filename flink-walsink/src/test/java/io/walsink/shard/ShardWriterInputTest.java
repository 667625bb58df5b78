package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.memtable.InvalidInputException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad batches are refused whole, naming the column, before anything reaches the memtable or WAL. */
class ShardWriterInputTest {
    @TempDir
    Path dir;

    private static final Field ID = ShardFixture.SCHEMA.getFields().get(0);
    private static final Field NAME = ShardFixture.SCHEMA.getFields().get(1);

    private void assertRefused(Schema schema, String column, String problem) {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter writer = f.open()) {
            f.put(writer, 1, "accepted before");
            try (VectorSchemaRoot bad = VectorSchemaRoot.create(schema, f.allocator)) {
                bad.allocateNew();
                bad.setRowCount(1);
                assertThatThrownBy(() -> writer.put(bad))
                        .isInstanceOf(InvalidInputException.class)
                        .hasMessageContaining("'" + column + "'")
                        .hasMessageContaining(problem);
            }
            assertThat(writer.pendingRows()).isEqualTo(1);
            appendAllPending(writer);
            assertThat(writer.stats().walAppends()).isEqualTo(1);
            assertThat(writer.stats().rowsWritten()).isEqualTo(1);
        }
    }

    @Test
    void missingColumn() {
        assertRefused(new Schema(List.of(ID)), "name", "missing");
    }

    @Test
    void wrongType() {
        assertRefused(
                new Schema(List.of(ID, new Field("name", FieldType.nullable(new ArrowType.Int(32, true)), null))),
                "name",
                "does not match");
    }

    @Test
    void unknownExtraColumn() {
        assertRefused(
                new Schema(List.of(ID, NAME, new Field("extra", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
                "extra",
                "unknown column");
    }

    @Test
    void nullKeyRefusesTheWholeBatch() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter writer = f.open();
                VectorSchemaRoot rows = f.rows(new long[] {1, 2, 3}, new String[] {"a", "b", "c"})) {
            ((BigIntVector) rows.getVector(0)).setNull(2);
            assertThatThrownBy(() -> writer.put(rows))
                    .hasMessageContaining("'id'")
                    .hasMessageContaining("row 2");
            assertThat(writer.pendingRows()).isZero();
        }
    }

    @Test
    void deletesAreRefusedInTheLanceJava70Profile() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.LANCE_JAVA_7_0, ShardWriterConfig.defaults());
                ShardWriter writer = f.open()) {
            assertThatThrownBy(() -> f.delete(writer, 1)).hasMessageContaining("lance-java-7.0");
            assertThat(writer.pendingRows()).isZero();
        }
    }
}
