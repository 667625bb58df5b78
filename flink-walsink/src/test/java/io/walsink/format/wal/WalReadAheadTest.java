package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.StorageException;
import io.walsink.testing.AllocatorExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A replay's WAL reads: entries come back decoded in position order, a missing one as empty at its
 * position, a failed fetch as its failure at its position; and the fetches of the next entries
 * run while the first is still outstanding (a store that answers only once several reads wait
 * proves it, where one read at a time would wait for ever).
 */
@Timeout(60)
class WalReadAheadTest {
    private static final UUID SHARD = UUID.fromString("6f1d2a0e-2b7c-4e55-8d0f-0c3b5a9e7d21");

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final InMemoryObjectStore memory = new InMemoryObjectStore();
    private final WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
    private final WalEntryCodec codec = new WalEntryCodec(storage, allocator);

    private void writeEntries(long... positions) {
        WalLog log = new WalLog(memory, SHARD, codec);
        for (long p : positions) {
            try (VectorSchemaRoot batch = AllTypesBatches.batch(storage.schema(), allocator, p * 10, (int) p)) {
                log.append(p, codec.encode(1, 1, List.of(batch)));
            }
        }
    }

    /** Rows of each position's entry, -1 where it is missing. */
    private static List<Integer> rowsInOrder(WalReadAhead entries) {
        List<Integer> rows = new ArrayList<>();
        while (entries.hasNext()) {
            Optional<WalEntry> e = entries.next();
            rows.add(e.map(entry -> {
                        try (entry) {
                            return entry.batches().get(0).getRowCount();
                        }
                    })
                    .orElse(-1));
        }
        return rows;
    }

    @Test
    void entriesComeInPositionOrderWithAMissingOneEmptyAtItsPlace() {
        writeEntries(1, 2, 3, 5, 6, 7, 8);
        WalLog log = new WalLog(memory, SHARD, codec);

        try (WalReadAhead entries = log.readAhead(2, 8, 3)) {
            assertThat(entries.position()).isEqualTo(2);
            assertThat(rowsInOrder(entries)).containsExactly(2, 3, -1, 5, 6, 7, 8);
        }
        try (WalReadAhead one = log.readAhead(5, 5, 4)) {
            assertThat(rowsInOrder(one)).containsExactly(5);
        }
        try (WalReadAhead none = log.readAhead(9, 8, 4)) {
            assertThat(none.hasNext()).isFalse();
        }
    }

    @Test
    void theNextEntriesAreFetchedWhileTheFirstIsOutstanding() {
        writeEntries(1, 2, 3, 4, 5, 6);
        CountDownLatch fourWaiting = new CountDownLatch(4);
        Set<String> fetchedOn = ConcurrentHashMap.newKeySet();
        ObjectStore slow = new ForwardingObjectStore(memory) {
            @Override
            public byte[] get(String key) {
                fetchedOn.add(Thread.currentThread().getName());
                fourWaiting.countDown();
                try {
                    if (!fourWaiting.await(20, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the reads of the next entries never started");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return super.get(key);
            }
        };

        try (WalReadAhead entries = new WalLog(slow, SHARD, codec).readAhead(1, 6, 4)) {
            assertThat(rowsInOrder(entries)).containsExactly(1, 2, 3, 4, 5, 6);
        }
        assertThat(fetchedOn).hasSize(4).allMatch(t -> t.startsWith("walsink-wal-read-"));
    }

    @Test
    void aFailedFetchIsThrownAtItsPositionAfterTheEntriesBeforeIt() {
        writeEntries(1, 2, 3, 4, 5);
        String failing = new WalLog(memory, SHARD, codec).key(3);
        ObjectStore broken = new ForwardingObjectStore(memory) {
            @Override
            public byte[] get(String key) {
                if (key.equals(failing)) {
                    throw new StorageException(key, "GET refused", false);
                }
                return super.get(key);
            }
        };

        try (WalReadAhead entries = new WalLog(broken, SHARD, codec).readAhead(1, 5, 4)) {
            entries.next().orElseThrow().close();
            entries.next().orElseThrow().close();
            assertThat(entries.position()).isEqualTo(3);
            assertThatThrownBy(entries::next)
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("refused");
        }
    }
}
