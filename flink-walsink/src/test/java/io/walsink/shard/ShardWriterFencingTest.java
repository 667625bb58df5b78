package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static io.walsink.shard.SyncShardDriver.tick;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalEntry;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardWriterFencingTest {
    @TempDir
    Path dir;

    @Test
    void aSecondWriterFencesTheFirstAtItsNextAppend() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter first = f.open();
            f.put(first, 1, "first");
            appendAllPending(first);
            f.put(first, 2, "written after the second writer opened");

            ShardWriter second = f.open();
            assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
            List<Long> before = f.walPositions();

            assertThatThrownBy(() -> appendAllPending(first))
                    .isInstanceOf(ShardPoisonedException.class)
                    .satisfies(e ->
                            assertThat(((ShardPoisonedException) e).reason()).isEqualTo(Reason.FENCED));
            assertThat(f.walPositions()).isEqualTo(before);
            // poisoned for good: every later call fails the same way and writes nothing
            try (VectorSchemaRoot rows = f.rows(new long[] {3}, new String[] {"x"})) {
                assertThatThrownBy(() -> first.put(rows)).isInstanceOf(ShardPoisonedException.class);
            }
            assertThatThrownBy(() -> tick(first, 0)).isInstanceOf(ShardPoisonedException.class);
            assertThat(f.walPositions()).isEqualTo(before);

            // the second writer replayed the first's durable row and wrote a sentinel at the tip
            long sentinel = before.get(before.size() - 1);
            try (WalEntry entry = f.wal().read(sentinel).orElseThrow()) {
                assertThat(entry.sentinel()).isTrue();
                assertThat(entry.writerEpoch()).isEqualTo(second.epoch());
            }
            assertThat(second.stats().replayedRows()).isEqualTo(1);
            first.close();
            second.close();
        }
    }

    @Test
    void aFencedWriterCannotPublish() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter first = f.open();
            f.put(first, 1, "a");
            appendAllPending(first);
            first.freezeActive();
            flushFrozen(first);
            ShardWriter second = f.open();
            long versions = new ManifestStore(f.store, ShardFixture.SHARD)
                    .listVersions()
                    .size();
            assertThatThrownBy(() -> publishAll(first))
                    .isInstanceOf(ShardPoisonedException.class)
                    .hasMessageContaining("FENCED");
            assertThat(new ManifestStore(f.store, ShardFixture.SHARD).listVersions())
                    .hasSize((int) versions);
            first.close();
            second.close();
        }
    }

    /**
     * A writer's publications build on the manifest it wrote last: no read of the store (on S3 a
     * hint GET, HEADs and a GET each) while no other writer claimed the shard. The fencing of a
     * claimed shard is {@link #aFencedWriterCannotPublish}.
     */
    @Test
    void publicationsBuildOnTheWritersOwnManifestWithoutReadingIt() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter writer = f.open();
            for (int generation = 1; generation <= 3; generation++) {
                f.put(writer, generation, "g" + generation);
                appendAllPending(writer);
                writer.freezeActive();
                flushFrozen(writer);
                long reads = reads(f.store);
                long version = writer.manifest().version();
                publishAll(writer);
                assertThat(writer.manifest().version()).isEqualTo(version + 1);
                assertThat(reads(f.store) - reads)
                        .as("store reads by the publication of generation %d", generation)
                        .isZero();
            }
            assertThat(new ManifestStore(f.store, ShardFixture.SHARD)
                            .readLatest()
                            .orElseThrow())
                    .isEqualTo(writer.manifest());
            writer.close();
            f.reopenAndExpect(Map.of(1L, "g1", 2L, "g2", 3L, "g3"));
        }
    }

    private static long reads(io.walsink.storage.fault.FaultInjectingObjectStore store) {
        long reads = 0;
        for (io.walsink.storage.fault.Operation op : io.walsink.storage.fault.Operation.values()) {
            if (!op.isWrite()) {
                reads += store.calls(op);
            }
        }
        return reads;
    }

    @Test
    void validationFailuresNeverBumpTheEpoch() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            f.open().close();
            ManifestStore manifests = new ManifestStore(f.store, ShardFixture.SHARD);
            long epoch = manifests.readLatest().orElseThrow().writerEpoch();
            long puts = f.store.calls(io.walsink.storage.fault.Operation.PUT_IF_ABSENT);
            // a float key cannot be encoded: refused while building the context, before any claim
            Schema floatKeyed = new Schema(List.of(
                    new Field(
                            "id",
                            FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                            null),
                    new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
            TableInfo other = new TableInfo(
                    f.table.uri(),
                    f.table.version(),
                    floatKeyed,
                    List.of("id"),
                    f.table.fieldIds(),
                    f.table.sharding(),
                    f.table.memWal());
            assertThatThrownBy(() -> new TableContext(
                            new TableLocation(f.store, other.uri(), Map.of()),
                            other,
                            WalSchemaProfile.SPEC,
                            ShardWriterConfig.defaults(),
                            f.allocator))
                    .hasMessageContaining("id");
            assertThat(f.store.calls(io.walsink.storage.fault.Operation.PUT_IF_ABSENT))
                    .isEqualTo(puts);
            assertThat(manifests.readLatest().orElseThrow().writerEpoch()).isEqualTo(epoch);
        }
    }
}
