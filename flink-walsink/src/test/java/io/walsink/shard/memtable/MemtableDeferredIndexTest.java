package io.walsink.shard.memtable;

import static io.walsink.shard.KeyedMemtables.KEY_LENGTH;
import static io.walsink.shard.KeyedMemtables.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.KeyedMemtables;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows written one at a time ({@link Memtable#appendRow}) have their keys indexed with their
 * batch; whatever reads the index or indexes rows of its own first catches the open batch up, so
 * the newest row of a key is the last one written whichever entry points wrote it.
 */
class MemtableDeferredIndexTest {
    private static final Schema TABLE = KeyedMemtables.ID_NAME;
    private static final Schema STORAGE = KeyedMemtables.ID_NAME_STORAGE;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final InputValidator validator = new InputValidator(TABLE, List.of("id"));

    private static RowWriter row(long id, String name) {
        return (columns, at) -> {
            ((BigIntVector) columns[0]).setSafe(at, id);
            ((VarCharVector) columns[1]).setSafe(at, name.getBytes(StandardCharsets.UTF_8));
        };
    }

    @Test
    void aKeyWrittenTwiceInOneOpenBatchIsNewestAtItsLastRow() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 8, 2)) {
            m.appendRow(row(7, "a"), false, validator);
            m.appendRow(row(8, "b"), false, validator);
            m.appendRow(row(7, "c"), false, validator);

            assertThat(m.rows()).isEqualTo(3);
            assertThat(m.indexedRows()).as("indexed with the batch").isZero();
            assertThat(m.hasPendingRows()).isTrue();

            m.sealOpenBatch();
            assertThat(m.indexedRows()).isEqualTo(3);
            boolean[] newest = new boolean[3];
            assertThat(m.markNewest(0, newest)).isEqualTo(2);
            assertThat(newest).containsExactly(false, true, true);
        }
    }

    @Test
    void aFullBatchIsIndexedWhenItSeals() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 2, 2)) {
            m.appendRow(row(1, "a"), false, validator);
            m.appendRow(row(1, "b"), false, validator);
            m.appendRow(row(2, "c"), false, validator);

            assertThat(m.sealedBatchCount()).isEqualTo(1);
            assertThat(m.indexedRows()).isEqualTo(2);
            assertThat(m.rows()).isEqualTo(3);
            assertThat(m.isNewest(1, key(1), KEY_LENGTH)).isTrue();
        }
    }

    @Test
    void readingTheIndexCatchesTheOpenBatchUp() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 8, 2)) {
            m.appendRow(row(5, "a"), false, validator);
            m.appendRow(row(5, "b"), false, validator);

            assertThat(m.isNewest(0, key(5), KEY_LENGTH)).isFalse();
            assertThat(m.isNewest(1, key(5), KEY_LENGTH)).isTrue();
            assertThat(m.distinctKeys()).isEqualTo(1);
        }
    }

    @Test
    void aRowAppendedByAnotherEntryPointAfterDeferredRowsWins() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 8, 2);
                VectorSchemaRoot in = VectorSchemaRoot.create(TABLE, allocator)) {
            ((BigIntVector) in.getVector(0)).setSafe(0, 9);
            ((VarCharVector) in.getVector(1)).setSafe(0, "later".getBytes(StandardCharsets.UTF_8));
            in.setRowCount(1);

            m.appendRow(row(9, "earlier"), false, validator);
            m.appendRow(row(10, "only"), false, validator);
            m.append(in, 0, false, key(9), KEY_LENGTH); // indexes at once: the deferred rows must go first
            m.sealOpenBatch();

            boolean[] newest = new boolean[3];
            assertThat(m.markNewest(0, newest)).isEqualTo(2);
            assertThat(newest).containsExactly(false, true, true);
        }
    }
}
