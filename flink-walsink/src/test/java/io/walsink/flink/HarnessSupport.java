package io.walsink.flink;

import io.walsink.flink.internal.BucketKeySelector;
import io.walsink.format.BitReversedName;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectMeta;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/** A two-column table (id BIGINT key, name STRING) and ways to look at what the sink wrote. */
final class HarnessSupport {
    static final RowType ROW =
            RowType.of(new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "name"});

    private HarnessSupport() {}

    static RowData upsert(long id, String name) {
        return GenericRowData.of(id, StringData.fromString(name));
    }

    static RowData delete(long id) {
        return GenericRowData.ofKind(RowKind.DELETE, id, null);
    }

    /** Runs mails of the task's mailbox (I/O completions) until {@code done}, or fails after 30 s. */
    static void runMailsUntil(AbstractStreamOperatorTestHarness<?> harness, BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!done.getAsBoolean()) {
            Optional<Mail> mail = harness.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
            } else if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within 30 s");
            } else {
                Thread.sleep(2);
            }
        }
    }

    /**
     * Runs mails of the task's mailbox until {@code count} of them named {@code name} (for example
     * the operator's "walsink WAL append" completions) have run, or fails after 30 s.
     */
    static void runMailsUntilRan(AbstractStreamOperatorTestHarness<?> harness, String name, int count)
            throws Exception {
        int ran = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (ran < count) {
            Optional<Mail> mail = harness.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
                if (mail.get().toString().equals(name)) {
                    ran++;
                }
            } else if (System.nanoTime() > deadline) {
                throw new AssertionError(ran + " of " + count + " mails '" + name + "' ran within 30 s");
            } else {
                Thread.sleep(2);
            }
        }
    }

    /** Runs every mail already queued and those that arrive within {@code quietMillis}. */
    static void settle(AbstractStreamOperatorTestHarness<?> harness, long quietMillis) throws Exception {
        long quietUntil = System.currentTimeMillis() + quietMillis;
        while (System.currentTimeMillis() < quietUntil) {
            Optional<Mail> mail = harness.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
                quietUntil = System.currentTimeMillis() + quietMillis;
            } else {
                Thread.sleep(2);
            }
        }
    }

    /** WAL entry objects of every shard (sentinels included). */
    static int walEntries(Path table) {
        int count = 0;
        for (ObjectMeta meta : new LocalObjectStore(table).listAll("_mem_wal/")) {
            String name = meta.key().substring(meta.key().lastIndexOf('/') + 1);
            if (meta.key().contains("/wal/")
                    && BitReversedName.parseWalEntryPosition(name).isPresent()) {
                count++;
            }
        }
        return count;
    }

    static Set<UUID> shards(Path table) {
        Set<UUID> shards = new HashSet<>();
        for (ObjectMeta meta : new LocalObjectStore(table).listAll("_mem_wal/")) {
            shards.add(UUID.fromString(meta.key().split("/")[1]));
        }
        return shards;
    }

    static int publishedSsTables(Path table) {
        int count = 0;
        LocalObjectStore store = new LocalObjectStore(table);
        for (UUID shard : shards(table)) {
            count += new ManifestStore(store, shard)
                    .readLatest()
                    .map(ShardManifest::sstables)
                    .map(List::size)
                    .orElse(0);
        }
        return count;
    }

    /** The table as a map id → name, read with the walsink reader. */
    static Map<Long, String> read(Path table, ReadMode mode) {
        Map<Long, String> rows = new TreeMap<>();
        try (RootAllocator allocator = new RootAllocator()) {
            new SnapshotReader(
                            new TableLocation(new LocalObjectStore(table), table.toString(), Map.of()),
                            WalSchemaProfile.SPEC,
                            allocator)
                    .read(mode)
                    .rows()
                    .forEach(r -> rows.put((Long) r.get("id"), (String) r.get("name")));
        }
        return rows;
    }

    /** The smallest id whose row the sink sends to {@code bucket}. */
    static long idInBucket(WalSink<RowData> sink, int bucket) throws Exception {
        BucketKeySelector<RowData> selector = sink.keySelector(SinkHarness.MAX_PARALLELISM);
        for (long id = 0; ; id++) {
            if (selector.routing().bucketOf(selector.getKey(upsert(id, ""))) == bucket) {
                return id;
            }
        }
    }
}
