package io.walsink.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.testing.S3MockServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The compaction lease on an S3-protocol server (s3mock), through the store the compactor uses:
 * its entries are listed, read, replaced in sequence and removed there as on local disk. (s3mock's
 * put-if-absent is not atomic under concurrency, so the race itself is tested in memory.)
 */
class CompactionLeaseS3Test {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void oneHolderAtATimeOnS3() {
        AtomicLong clock = new AtomicLong(5_000_000);
        String path = "s3://" + S3MockServer.BUCKET + "/lease-" + UUID.randomUUID() + "/table";
        try (ObjectStore store = ObjectStores.open(path, S3.options())) {
            CompactionLease a = CompactionLease.acquire(store, path, "compactor-a", LEASE, clock::get);
            assertThatThrownBy(() -> CompactionLease.acquire(store, path, "compactor-b", LEASE, clock::get))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-a");
            clock.addAndGet(LEASE.toMillis() / 2);
            a.renew();
            a.close();
            try (CompactionLease b = CompactionLease.acquire(store, path, "compactor-b", LEASE, clock::get)) {
                assertThat(store.listAll(CompactionLease.PREFIX)).hasSize(1);
                clock.addAndGet(LEASE.toMillis());
                try (CompactionLease c = CompactionLease.acquire(store, path, "compactor-c", LEASE, clock::get)) {
                    assertThatThrownBy(b::renew).hasMessageContaining("compactor-c took it over");
                }
            }
        }
    }
}
