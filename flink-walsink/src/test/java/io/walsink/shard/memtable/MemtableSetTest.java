package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.shard.KeyedMemtables;
import io.walsink.testing.AllocatorExtension;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemtableSetTest {
    private static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private Memtable memtable(long generation) {
        return KeyedMemtables.create(allocator, SCHEMA, generation, 100, -1);
    }

    private static void put(Memtable m, VectorSchemaRoot in, long id) {
        ((BigIntVector) in.getVector(0)).setSafe(0, id);
        in.setRowCount(1);
        m.append(in, 0, false, KeyedMemtables.key(id), KeyedMemtables.KEY_LENGTH);
    }

    @Test
    void frozenTailIsAppendedBeforeTheActiveMemtable() {
        try (MemtableSet set = new MemtableSet(memtable(1));
                VectorSchemaRoot in = VectorSchemaRoot.create(SCHEMA, allocator)) {
            put(set.active(), in, 1);
            Memtable first = set.freezeActive(memtable(2));
            put(set.active(), in, 1); // newer value of the same key in the next generation
            assertThat(set.oldestPending()).containsSame(first);
            first.markDurable(first.pendingBatches().size(), 1);
            assertThat(set.oldestPending()).containsSame(set.active());
        }
    }

    @Test
    void nothingPendingWhenEverythingIsDurable() {
        try (MemtableSet set = new MemtableSet(memtable(1))) {
            assertThat(set.oldestPending()).isEmpty();
            assertThat(set.hasPendingRows()).isFalse();
        }
    }

    @Test
    void generationsGrowAndRetireOldestFirst() {
        try (MemtableSet set = new MemtableSet(memtable(1))) {
            Memtable same = memtable(1);
            assertThatThrownBy(() -> set.freezeActive(same)).hasMessageContaining("after 1");
            same.close();
            Memtable g1 = set.freezeActive(memtable(2));
            Memtable g2 = set.freezeActive(memtable(3));
            assertThatThrownBy(() -> set.retireOldestFrozen(g2)).hasMessageContaining("oldest first");
            set.retireOldestFrozen(g1);
            assertThat(set.oldestFrozen()).containsSame(g2);
            assertThat(set.all()).extracting(Memtable::generation).containsExactly(2L, 3L);
        }
    }
}
