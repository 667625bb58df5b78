package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.testing.AllocatorExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WalLogTest {
    private static final UUID SHARD = UUID.fromString("0b5c8e3e-6f6a-4d8e-9a57-5d1b9c1f0a11");

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final WalStorageSchema storage = AllTypesBatches.storage(WalSchemaProfile.SPEC);
    private final WalEntryCodec codec = new WalEntryCodec(storage, allocator);
    private final WalLog log = new WalLog(store, SHARD, codec);

    private byte[] entry(long firstId, int rows) {
        try (VectorSchemaRoot batch = AllTypesBatches.batch(storage.schema(), allocator, firstId, rows)) {
            return codec.encode(1, 1, List.of(batch));
        }
    }

    @Test
    void entriesLiveUnderTheShardWalFolder() {
        assertThat(log.key(3)).isEqualTo("_mem_wal/" + SHARD + "/wal/11" + "0".repeat(62) + ".arrow");
    }

    @Test
    void tipOfAnEmptyWalIsOne() {
        assertThat(log.findTip(0)).isEqualTo(1);
        assertThat(log.findTip(5)).isEqualTo(1);
    }

    @Test
    void tipProbesForwardFromAnExistingHint() {
        for (long p = 1; p <= 3; p++) {
            log.append(p, entry(p, 1));
        }
        // A stale entry far ahead must not be found by probing from the hint (it is not contiguous).
        store.putIfAbsent(log.key(10), entry(10, 1));

        assertThat(log.findTip(1)).isEqualTo(4);
        assertThat(log.findTip(3)).isEqualTo(4);
    }

    @Test
    void missingHintFallsBackToListingIgnoringTemporaryFiles() {
        for (long p = 1; p <= 3; p++) {
            log.append(p, entry(p, 1));
        }
        String folder = TableLayout.walFolder(SHARD);
        store.put(folder + BitReversedName.walEntryName(9) + ".tmp", new byte[] {1});
        store.put(folder + ".tmp-" + BitReversedName.walEntryName(9), new byte[] {1});
        store.put(folder + "junk.arrow", new byte[] {1});
        store.put("_mem_wal/" + UUID.randomUUID() + "/wal/" + BitReversedName.walEntryName(7), new byte[] {1});

        assertThat(log.findTip(8)).isEqualTo(4);
        assertThat(log.findTip(0)).isEqualTo(4);
    }

    @Test
    void appendIsPutIfAbsent() {
        byte[] first = entry(1, 2);
        log.append(1, first);

        assertThatThrownBy(() -> log.append(1, entry(5, 1))).isInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(store.get(log.key(1))).isEqualTo(first);
    }

    @Test
    void readsFromAPositionUntilTheFirstMiss() {
        log.append(1, entry(1, 2));
        log.append(2, codec.encodeSentinel(2));
        log.append(3, entry(10, 3));
        log.append(5, entry(20, 1));
        List<String> seen = new ArrayList<>();

        long next = log.readFrom(1, e -> seen.add(e.position() + ":" + e.sentinel() + ":" + e.rowCount()));

        assertThat(next).isEqualTo(4);
        assertThat(seen).containsExactly("1:false:2", "2:true:0", "3:false:3");
        assertThat(log.read(4)).isEmpty();
        try (WalEntry third = log.read(3).orElseThrow()) {
            assertThat(Rows.of(third.batches())).extracting(r -> r.get("id")).containsExactly(10L, 11L, 12L);
        }
    }

    @Test
    void aCorruptEntryStopsReadingWithItsLocation() {
        log.append(1, entry(1, 2));
        byte[] bytes = entry(3, 2);
        log.append(2, Arrays.copyOf(bytes, bytes.length - 8));

        assertThatThrownBy(() -> log.readFrom(1, e -> {}))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining("memory://" + log.key(2));
    }
}
