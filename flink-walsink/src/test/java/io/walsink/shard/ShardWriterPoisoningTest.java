package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.appendOnce;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static io.walsink.shard.SyncShardDriver.tick;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.io.SsTableWriteException;
import io.walsink.storage.RetryPolicy;
import io.walsink.storage.RetryingObjectStore;
import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.Operation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first terminal failure is latched: every later call throws that same exception and writes
 * nothing, and the only way back is a reopen, which loses nothing that was durable.
 */
class ShardWriterPoisoningTest {
    @TempDir
    Path dir;

    private ShardFixture fixture() {
        return new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
    }

    @Test
    void fencedStaysFenced() {
        try (ShardFixture f = fixture()) {
            ShardWriter first = f.open();
            f.put(first, 1, "a");
            ShardWriter second = f.open();
            ShardPoisonedException fenced =
                    catchThrowableOfType(ShardPoisonedException.class, () -> appendAllPending(first));
            assertThat(fenced.reason()).isEqualTo(Reason.FENCED);
            assertEveryCallThrows(f, first, fenced);
            first.close();
            second.close();
        }
    }

    @Test
    void anAmbiguousAppendStaysPoisonedAndItsEntryIsReplayedAfterReopen() {
        try (ShardFixture f = fixture()) {
            RetryingObjectStore retrying = new RetryingObjectStore(
                    f.store, new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1)), d -> {}, new Random(1));
            ShardWriter writer = f.open(f.contextOver(retrying, ShardWriterConfig.defaults()));
            f.put(writer, 1, "landed, acknowledgement lost");
            f.store.inject(Fault.on(Operation.PUT_IF_ABSENT).nthCall(1).loseAcknowledgement());
            ShardPoisonedException ambiguous =
                    catchThrowableOfType(ShardPoisonedException.class, () -> appendAllPending(writer));
            assertThat(ambiguous.reason()).isEqualTo(Reason.AMBIGUOUS_APPEND);
            assertEveryCallThrows(f, writer, ambiguous);
            writer.close();

            f.open().close();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
        }
    }

    @Test
    void aFailedSsTableWriteKeepsTheFrozenMemtable() throws IOException {
        try (ShardFixture f = fixture()) {
            // A base table whose _mem_wal is a regular file: the merge progress reads, lance-core cannot
            // create an SSTable dataset under it; WAL and manifests (in the fixture's store) still work.
            Path other = dir.resolve("unwritable");
            LanceTables.create(
                    other.toString(), ShardFixture.SCHEMA, List.of("id"), TableSharding.bucket("id", 1), Map.of());
            Files.writeString(other.resolve("_mem_wal"), "x");
            TableInfo unwritable = withUri(f.table, other.toString());
            TableContext broken = new TableContext(
                    new TableLocation(f.store, unwritable.uri(), Map.of()),
                    unwritable,
                    WalSchemaProfile.SPEC,
                    ShardWriterConfig.defaults(),
                    f.allocator);
            ShardWriter writer = f.open(broken);
            f.put(writer, 1, "a");
            f.put(writer, 2, "b");
            writer.freezeActive();
            appendAllPending(writer);
            long unflushed = writer.unflushedBytes();

            ShardPoisonedException failed =
                    catchThrowableOfType(ShardPoisonedException.class, () -> flushFrozen(writer));
            assertThat(failed.reason()).isEqualTo(Reason.FLUSH_FAILED);
            assertThat(failed).hasCauseInstanceOf(SsTableWriteException.class);
            assertThat(writer.frozenMemtables()).isEqualTo(1);
            assertThat(writer.unflushedBytes()).isEqualTo(unflushed);
            assertEveryCallThrows(f, writer, failed);
            writer.close();

            f.reopenAndExpect(f.model);
        }
    }

    @Test
    void aFailedManifestWriteStaysPoisonedAndKeepsTheSsTableUnpublished() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "a");
            writer.freezeActive();
            appendAllPending(writer);
            flushFrozen(writer);
            f.store.inject(Fault.on(Operation.PUT_IF_ABSENT).everyCall().failPermanently());
            ShardPoisonedException failed =
                    catchThrowableOfType(ShardPoisonedException.class, () -> publishAll(writer));
            f.store.clearFaults();
            assertThat(failed.reason()).isEqualTo(Reason.PERSISTENCE_FAILURE);
            assertThat(writer.unpublished()).hasSize(1);
            assertEveryCallThrows(f, writer, failed);
            writer.close();

            f.open().close();
            assertThat(f.read(ReadMode.COMMITTED)).isEmpty();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
        }
    }

    private static TableInfo withUri(TableInfo t, String uri) {
        return new TableInfo(uri, t.version(), t.schema(), t.primaryKey(), t.fieldIds(), t.sharding(), t.memWal());
    }

    /** Every entry point fails with the very same exception, and no WAL entry is written. */
    private static void assertEveryCallThrows(ShardFixture f, ShardWriter writer, ShardPoisonedException poison) {
        List<Long> entries = f.walPositions();
        try (VectorSchemaRoot rows = f.rows(new long[] {99}, new String[] {"after poison"})) {
            List<ThrowingCallable> calls = List.of(
                    () -> writer.put(rows),
                    () -> writer.delete(rows),
                    () -> writer.write(rows, 0, false),
                    () -> tick(writer, Long.MAX_VALUE),
                    writer::beginAppend,
                    () -> appendOnce(writer),
                    () -> appendAllPending(writer),
                    writer::freezeActive,
                    writer::beginFlush,
                    () -> flushFrozen(writer),
                    () -> writer.beginPublish(Long.MAX_VALUE),
                    () -> publishAll(writer),
                    writer::snapshot,
                    () -> flushAndPublishAll(writer));
            for (ThrowingCallable call : calls) {
                assertThatThrownBy(call).isSameAs(poison);
            }
        }
        assertThat(writer.poison()).containsSame(poison);
        assertThat(writer.wantsEarlyAppend()).isFalse();
        assertThat(f.walPositions()).isEqualTo(entries);
    }
}
