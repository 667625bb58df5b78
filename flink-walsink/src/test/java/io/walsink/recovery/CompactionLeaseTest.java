package io.walsink.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.StorageException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The compaction lease: one holder at a time, taken over only after it expired, released early. */
class CompactionLeaseTest {
    private static final Duration LEASE = Duration.ofMinutes(10);
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final InMemoryObjectStore store = new InMemoryObjectStore();

    private CompactionLease acquire(ObjectStore on, String holder) {
        return CompactionLease.acquire(on, "table", holder, LEASE, clock::get);
    }

    @Test
    void aHeldLeaseRefusesASecondCompactorNamingTheHolder() {
        try (CompactionLease a = acquire(store, "compactor-a")) {
            assertThatThrownBy(() -> acquire(store, "compactor-b"))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-a")
                    .hasMessageContaining("one compactor or collector per table");
            clock.addAndGet(LEASE.toMillis() - 1);
            assertThatThrownBy(() -> acquire(store, "compactor-b")).isInstanceOf(CompactionLeaseException.class);
        }
    }

    @Test
    void aReleasedLeaseIsFreeAtOnce() {
        acquire(store, "compactor-a").close();
        try (CompactionLease b = acquire(store, "compactor-b")) {
            assertThat(store.listAll(CompactionLease.PREFIX))
                    .as("older entries removed")
                    .hasSize(1);
        }
    }

    @Test
    void renewalKeepsTheLeaseAndOneEntry() {
        try (CompactionLease a = acquire(store, "compactor-a")) {
            for (int i = 0; i < 5; i++) {
                clock.addAndGet(LEASE.toMillis() / 2);
                a.renew();
            }
            // Five renewals at half the lease each: past the first expiry, still held.
            assertThatThrownBy(() -> acquire(store, "compactor-b")).isInstanceOf(CompactionLeaseException.class);
            assertThat(store.listAll(CompactionLease.PREFIX)).hasSize(1);
        }
    }

    @Test
    void anExpiredLeaseIsTakenOverAndItsHolderStopsAtItsNextRenewal() {
        CompactionLease a = acquire(store, "compactor-a");
        clock.addAndGet(LEASE.toMillis());
        try (CompactionLease b = acquire(store, "compactor-b")) {
            assertThatThrownBy(a::renew)
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-b took it over");
            a.close(); // must not end b's lease
            assertThatThrownBy(() -> acquire(store, "compactor-c"))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-b");
            b.renew();
        }
    }

    @Test
    void ofTwoCompactorsReadingTheSameFreeLeaseOnlyOneGetsIt() {
        AtomicBoolean raced = new AtomicBoolean();
        // b reads the lease free, then a takes it before b writes.
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                if (raced.compareAndSet(false, true)) {
                    acquire(store, "compactor-a");
                }
                super.putIfAbsent(key, data);
            }
        };
        assertThatThrownBy(() -> acquire(racing, "compactor-b"))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("compactor-a");
        assertThat(raced)
                .as("the competitor ran between the read and the write")
                .isTrue();
    }

    @Test
    void anAmbiguousWriteThatLandedCountsAsTaken() {
        AtomicBoolean failed = new AtomicBoolean();
        ObjectStore lostAck = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                super.putIfAbsent(key, data);
                if (failed.compareAndSet(false, true)) {
                    throw new AmbiguousWriteException(key, "acknowledgement lost", null);
                }
            }
        };
        try (CompactionLease a = acquire(lostAck, "compactor-a")) {
            assertThat(failed).as("the acknowledgement was lost").isTrue();
            assertThatThrownBy(() -> acquire(store, "compactor-b"))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-a");
        }
    }

    @Test
    void aTransientStoreFailureDoesNotLeaveTheLeaseBehind() {
        AtomicInteger failuresLeft = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ObjectStore flaky = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    failed.incrementAndGet();
                    throw new StorageException(key, "simulated throttling", true);
                }
                super.putIfAbsent(key, data);
            }
        };
        CompactionLease a = acquire(flaky, "compactor-a");
        failuresLeft.set(1);
        a.renew();
        failuresLeft.set(1);
        a.close();
        assertThat(failed).as("both faults fired").hasValue(2);
        try (CompactionLease b = acquire(store, "compactor-b")) {
            assertThat(b).as("released despite the failure").isNotNull();
        }
    }

    @Test
    void anEntryRemovedAfterItWasListedDoesNotMakeTheLeaseLookFree() {
        CompactionLease a = acquire(store, "compactor-a");
        List<ObjectMeta> stale = store.listAll(CompactionLease.PREFIX); // entry 1 only
        a.renew();
        a.renew(); // entries 1 and 2 are gone, 3 holds the lease
        AtomicInteger staleListings = new AtomicInteger();
        ObjectStore behind = new ForwardingObjectStore(store) {
            @Override
            public ListPage list(String prefix, String continuation, int maxKeys) {
                if (staleListings.getAndIncrement() == 0) {
                    return new ListPage(stale, null);
                }
                return super.list(prefix, continuation, maxKeys);
            }
        };
        assertThatThrownBy(() -> acquire(behind, "compactor-b"))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("compactor-a");
        assertThat(staleListings).as("the stale listing was served").hasValueGreaterThanOrEqualTo(1);
        a.renew();
        a.close();
    }

    @Test
    void aNumberTheHolderRemovedCannotBeTakenAgainUnnoticed() {
        CompactionLease a = acquire(store, "compactor-a");
        clock.addAndGet(LEASE.toMillis()); // a expired
        AtomicBoolean overtaken = new AtomicBoolean();
        // b saw entry 1 expired; before it writes entry 2, c takes the lease and renews it (2, then 3; 2 removed).
        ObjectStore slow = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                if (overtaken.compareAndSet(false, true)) {
                    acquire(store, "compactor-c").renew();
                }
                super.putIfAbsent(key, data);
            }
        };
        assertThatThrownBy(() -> acquire(slow, "compactor-b"))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("compactor-c");
        assertThat(overtaken).isTrue();
        assertThatThrownBy(() -> acquire(store, "compactor-d")).hasMessageContaining("compactor-c");
        a.close();
    }

    // ---------------------------------------------------------------- a restarted job

    private CompactionLease acquire(ObjectStore on, LeaseClaimant claimant) {
        return CompactionLease.acquire(on, "table", claimant, LEASE, clock::get);
    }

    /** As a writer subtask's restore takes it ({@link RestoreExclusion}). */
    private CompactionLease restore(ObjectStore on, LeaseClaimant claimant) {
        return CompactionLease.acquireShared(on, "table", claimant, LEASE, clock::get);
    }

    @Test
    void aLaterAttemptOfTheSameJobTakesTheLeaseOfItsDeadAttemptAtOnce() {
        CompactionLease dead = acquire(store, LeaseClaimant.named("job-1 attempt 0", "job-1", List.of("job-1")));
        // attempt 0's process was killed: its lease is never released, and no time passes
        try (CompactionLease restarted =
                acquire(store, LeaseClaimant.named("job-1 attempt 1", "job-1", List.of("job-1")))) {
            assertThatThrownBy(dead::renew)
                    .as("the dead attempt, were it still running, stops at its next renewal")
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("taken back by job-1 attempt 1");
            assertThatThrownBy(() -> acquire(store, "compactor-b"))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("job-1 attempt 1");
            restarted.renew();
        }
    }

    @Test
    void aJobRestoredFromAKilledJobsCheckpointTakesItsLeaseAtOnce() {
        acquire(store, LeaseClaimant.named("job-1", "job-1", List.of("job-1")));
        try (CompactionLease restored =
                acquire(store, LeaseClaimant.named("job-2", "job-2", List.of("job-1", "job-2")))) {
            assertThat(CompactionLease.latest(store).orElseThrow().holder()).isEqualTo("job-2");
        }
    }

    @Test
    void anotherHolderIsStillRefusedUntilItsLeaseExpires() {
        try (CompactionLease other = acquire(store, LeaseClaimant.named("job-9", "job-9", List.of("job-9")))) {
            for (LeaseClaimant claimant : List.of(
                    LeaseClaimant.named("job-2", "job-2", List.of("job-1", "job-2")),
                    LeaseClaimant.standalone("compact"))) {
                assertThatThrownBy(() -> acquire(store, claimant))
                        .isInstanceOf(CompactionLeaseException.class)
                        .hasMessageContaining("job-9");
            }
        }
        clock.addAndGet(1);
        try (CompactionLease standalone = acquire(store, "compactor-a")) {
            // A standalone compactor's entry is nobody's earlier attempt, whatever the job.
            assertThatThrownBy(() -> acquire(store, LeaseClaimant.named("job-1", "job-1", List.of("job-1"))))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("compactor-a");
        }
    }

    /**
     * Two claimants of one job (two attempts, or two writer subtasks restoring at the same moment)
     * write the same next entry: the one that loses takes it back as from an earlier attempt instead
     * of failing (a restore failed on it, found by SavepointRestoreAcrossMergesTest), and the other
     * stops at its next renewal, so only one holds it.
     */
    @Test
    void ofTwoAttemptsTakingBackTheSameEntryTheLaterHoldsItAndTheOtherStopsAtItsRenewal() {
        acquire(store, LeaseClaimant.named("attempt 0", "job-1", List.of("job-1")));
        AtomicBoolean raced = new AtomicBoolean();
        CompactionLease[] first = new CompactionLease[1];
        // attempt 2 reads attempt 0's entry, then attempt 1 takes it back before attempt 2 writes.
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                if (raced.compareAndSet(false, true)) {
                    first[0] = acquire(store, LeaseClaimant.named("attempt 1", "job-1", List.of("job-1")));
                }
                super.putIfAbsent(key, data);
            }
        };
        CompactionLease second = acquire(racing, LeaseClaimant.named("attempt 2", "job-1", List.of("job-1")));
        assertThat(raced).as("attempt 1 ran between attempt 2's read and write").isTrue();
        assertThat(CompactionLease.latest(store).orElseThrow().holder()).isEqualTo("attempt 2");
        assertThatThrownBy(first[0]::renew)
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("attempt 2");
        second.renew();
    }

    /**
     * Two writer subtasks of one job restore at the same moment: one writes its entry, and before it
     * checks that the entry is the highest, the other takes it back above it. The first still holds
     * the lease with it (before, its restore failed naming the other, found by
     * SavepointRestoreAcrossMergesTest in CI), another job stays refused, and the first one's release
     * does not free the other's.
     */
    @Test
    void ofTwoSubtasksOfOneJobTakingTheLeaseAtOnceBothHoldIt() {
        AtomicBoolean raced = new AtomicBoolean();
        CompactionLease[] second = new CompactionLease[1];
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                super.putIfAbsent(key, data);
                if (raced.compareAndSet(false, true)) {
                    second[0] =
                            restore(store, LeaseClaimant.named("job-1, restore of shard b", "job-1", List.of("job-1")));
                }
            }
        };
        CompactionLease first =
                restore(racing, LeaseClaimant.named("job-1, restore of shard a", "job-1", List.of("job-1")));
        assertThat(raced)
                .as("the second subtask wrote between the first one's write and its check")
                .isTrue();
        assertThat(CompactionLease.latest(store).orElseThrow().holder()).isEqualTo("job-1, restore of shard b");
        assertThatThrownBy(() -> acquire(store, LeaseClaimant.named("job-9", "job-9", List.of("job-9"))))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("restore of shard b");
        first.close();
        assertThatThrownBy(() -> acquire(store, "compactor-c"))
                .as("the first restore's release leaves the second one's entry")
                .isInstanceOf(CompactionLeaseException.class);
        second[0].close();
        acquire(store, "compactor-c").close();
    }

    /**
     * As above, but the other subtask also releases before the first one checks: the entry on top is
     * then a release, so the first takes the lease again rather than hold a free one.
     */
    @Test
    void aSubtaskWhoseOwnJobTookAndReleasedTheLeaseMeanwhileTakesItAgain() {
        AtomicBoolean raced = new AtomicBoolean();
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                super.putIfAbsent(key, data);
                if (raced.compareAndSet(false, true)) {
                    restore(store, LeaseClaimant.named("job-1, restore of shard b", "job-1", List.of("job-1")))
                            .close();
                }
            }
        };
        try (CompactionLease first =
                restore(racing, LeaseClaimant.named("job-1, restore of shard a", "job-1", List.of("job-1")))) {
            assertThat(raced)
                    .as("the second subtask took and released between the first one's write and check")
                    .isTrue();
            assertThat(CompactionLease.latest(store).orElseThrow().holder()).isEqualTo("job-1, restore of shard a");
            assertThatThrownBy(() -> acquire(store, "compactor-c"))
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("restore of shard a");
        }
    }

    /**
     * A restoring subtask that dies holding its share is still named: the lease is held until the
     * entry expires (longer than needed, never shorter), and a later attempt's restore joins it
     * rather than freeing it early.
     */
    @Test
    void aShareOfADeadRestoreHoldsTheLeaseUntilItExpires() {
        restore(store, LeaseClaimant.named("job-1, restore of shard a", "job-1", List.of("job-1"))); // never released
        CompactionLease b = restore(store, LeaseClaimant.named("job-1, restore of shard b", "job-1", List.of("job-1")));
        b.close();
        assertThatThrownBy(() -> acquire(store, "compactor-c"))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("restore of shard a");
        assertThatThrownBy(b::renew).isInstanceOf(IllegalStateException.class);

        clock.addAndGet(LEASE.toMillis());
        acquire(store, "compactor-c").close();
    }

    @Test
    void aSharedEntryNamesEveryHolderAndAJobRestoredFromItsCheckpointsDoesNotJoinIt() {
        restore(store, LeaseClaimant.named("job-1, restore of shard a", "job-1", List.of("job-1")));
        restore(store, LeaseClaimant.named("job-1, restore of shard b", "job-1", List.of("job-1")));
        String entry = new String(store.get(CompactionLease.key(2)), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(entry).contains("shared=job-1, restore of shard a\nshared=job-1, restore of shard b\n");

        // job-2 continues job-1 (restored from its checkpoints): job-1's subtasks are dead.
        try (CompactionLease c = restore(store, LeaseClaimant.named("job-2, restore", "job-2", List.of("job-1")))) {
            assertThat(new String(store.get(CompactionLease.key(3)), java.nio.charset.StandardCharsets.UTF_8))
                    .doesNotContain("job-1, restore");
        }
        acquire(store, "compactor-c").close();
    }

    @Test
    void theEntryNamesTheJobSoThatAnUpgradedReaderStillParsesIt() {
        acquire(store, LeaseClaimant.named("job-1 attempt 0", "job-1", List.of("job-1")));
        String entry = new String(store.get(CompactionLease.key(1)), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(entry).contains("holder=job-1 attempt 0\n").contains("job=job-1\n");
    }

    @Test
    void aFencedHolderRenewsNoMoreTakesNoLeaseButStillReleasesIt() {
        AtomicBoolean fenced = new AtomicBoolean();
        LeaseClaimant closing =
                LeaseClaimant.named("job-1", "job-1", List.of("job-1")).fencedWhen(fenced::get);
        CompactionLease a = acquire(store, closing);
        fenced.set(true);
        assertThatThrownBy(a::renew)
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("is closing");
        assertThatThrownBy(a::ensureNotFenced).isInstanceOf(CompactionLeaseException.class);
        assertThatThrownBy(() -> acquire(store, closing)).hasMessageContaining("takes no compaction lease");
        a.close();
        try (CompactionLease b = acquire(store, "compactor-b")) {
            assertThat(b).as("released by the fenced holder").isNotNull();
        }
    }
}
