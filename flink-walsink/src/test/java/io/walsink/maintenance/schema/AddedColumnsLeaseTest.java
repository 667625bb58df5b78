package io.walsink.maintenance.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.CompactionFixture;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.shard.ShardWriter;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adding columns merges the published generations and commits the columns under one hold of the
 * compaction lease, so no compactor's merge and no restore's reset commits between the two.
 */
class AddedColumnsLeaseTest {
    @TempDir
    Path dir;

    @Test
    void theColumnsAreAddedUnderTheLeaseTheirMergeTook() {
        try (CompactionFixture f = new CompactionFixture(dir, 3)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 40, 30, "g1");
            CompactionFixture.publishGeneration(writers);
            writers.forEach(ShardWriter::close);
            LocalObjectStore store = new LocalObjectStore(Path.of(f.uri));
            AtomicReference<Object> other = new AtomicReference<>();

            AddedColumns.add(
                    f.uri, null, f.uri, Map.of(), List.of(Field.nullable("note", ArrowType.Utf8.INSTANCE)), () -> {
                        try (CompactionLease taken = acquire(store, f.uri)) {
                            other.set("another claimant took the lease at the addColumns commit");
                        } catch (CompactionLeaseException e) {
                            other.set(e);
                        }
                    });

            assertThat(other.get())
                    .as("another claimant, just before the columns' commit")
                    .isInstanceOf(CompactionLeaseException.class);
            List<Map<String, Object>> expected = new ArrayList<>();
            for (Map<String, Object> row : f.modelRows()) {
                Map<String, Object> wide = new LinkedHashMap<>(row);
                wide.put("note", null);
                expected.add(wide);
            }
            assertThat(f.baseRows())
                    .as("the generations merged, then the column added")
                    .isEqualTo(expected);
            try (CompactionLease released = acquire(store, f.uri)) {
                assertThat(released).as("released after the commit").isNotNull();
            }
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isZero();
        }
    }

    private static CompactionLease acquire(LocalObjectStore store, String uri) {
        return CompactionLease.acquire(
                store,
                uri,
                LeaseClaimant.standalone("another compactor"),
                Duration.ofMinutes(1),
                System::currentTimeMillis);
    }
}
