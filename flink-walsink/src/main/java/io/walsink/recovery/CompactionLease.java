package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compactor per table at a time, with nothing but put-if-absent: the lease is a sequence of
 * objects {@code _walsink/compaction-lease/{n}}, each naming its holder and when it expires. Taking
 * or renewing the lease writes the next number; of two compactors that read the same latest
 * entry, only one can write its successor, and a writer then checks that no higher entry exists
 * (holders remove the entries below theirs, so a number can be written twice). A holder renews
 * before every commit, so one whose lease
 * expired and was taken over stops before its next commit (at most the commit it is in when the
 * lease runs out still lands: keep the lease well above a generation's merge time). Releasing
 * writes an entry that has already expired, so the next run need not wait. How an entry lands in
 * the store is {@link LeaseEntries}'.
 *
 * <p>An entry also names the job its holder ran for, when it is the sink's own maintenance
 * ({@link LeaseClaimant}): a later attempt of that job, or a job restored from its checkpoints,
 * takes the entry over at once instead of waiting for it to expire (its holder died with the
 * attempt, or is fenced at its next renewal), while any other holder's entry is refused until it
 * expires. A takeover writes the next number like any other, so two live attempts cannot both
 * hold the lease.
 *
 * <p>A restore holds the lease <em>shared</em> ({@link #acquireShared}): the writer subtasks of one
 * job restore at the same time, each taking it, and the entry names every one of them that holds
 * it. A release writes the next entry without the releasing one, and only the last frees the lease,
 * so no compactor commits while any of the job's restores still rolls back rows. A subtask that dies
 * holding it stays named until the entry expires: the lease is then held longer than needed, never
 * shorter.
 *
 * <p>Expiry compares the writer's clock with the reader's: clocks of machines that compact the same
 * table must agree to well within the lease duration.
 */
@Internal
public final class CompactionLease implements AutoCloseable {
    /** How long an entry holds the lease unless renewed. */
    public static final Duration DEFAULT_DURATION = Duration.ofMinutes(10);

    private static final Logger LOG = LoggerFactory.getLogger(CompactionLease.class);
    static final String PREFIX = LeaseEntries.PREFIX;
    private static final int READ_ATTEMPTS = 5;

    private final LeaseEntries entries;
    private final String table;
    private final LeaseClaimant claimant;
    private final String holder;
    private final Duration duration;
    private final LongSupplier clock;
    private final boolean shared;
    private long sequence;
    private long expiresAtMillis;
    private boolean released;

    private CompactionLease(
            LeaseEntries entries,
            String table,
            LeaseClaimant claimant,
            Duration duration,
            LongSupplier clock,
            boolean shared,
            long sequence) {
        this.entries = entries;
        this.table = table;
        this.claimant = claimant;
        this.holder = claimant.name();
        this.duration = duration;
        this.clock = clock;
        this.shared = shared;
        this.sequence = sequence;
    }

    /** Takes the table's lease for a claimant named {@code holder} that continues no job. */
    public static CompactionLease acquire(
            ObjectStore store, String table, String holder, Duration duration, LongSupplier clock) {
        return acquire(store, table, LeaseClaimant.named(holder, null, List.of()), duration, clock);
    }

    /**
     * Takes the table's lease for {@code claimant}, or fails naming the compactor that holds it. An
     * unexpired entry is taken over at once when it was written for the claimant's own job or a job
     * of its lineage (an earlier attempt that died holding it); any other holder's is not. An entry of
     * the claimant's own job written above ours before we saw ours on top leaves it holding the
     * lease until its next renewal, which then fails. Restores use {@link #acquireShared}.
     */
    public static CompactionLease acquire(
            ObjectStore store, String table, LeaseClaimant claimant, Duration duration, LongSupplier clock) {
        return acquire(store, table, claimant, duration, clock, false);
    }

    /**
     * Takes the table's lease for {@code claimant} as {@link #acquire} does, but held together with
     * the other shared holders of its own job that hold it now (the job's other restoring subtasks):
     * it is free again once all of them released it. A shared lease is not renewed.
     */
    public static CompactionLease acquireShared(
            ObjectStore store, String table, LeaseClaimant claimant, Duration duration, LongSupplier clock) {
        return acquire(store, table, claimant, duration, clock, true);
    }

    private static CompactionLease acquire(
            ObjectStore store,
            String table,
            LeaseClaimant claimant,
            Duration duration,
            LongSupplier clock,
            boolean shared) {
        String holder = claimant.name();
        if (claimant.fenced()) {
            throw new CompactionLeaseException(table, holder + " is closing; it takes no compaction lease");
        }
        LeaseEntries entries = new LeaseEntries(store);
        long now = clock.getAsLong();
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            List<Long> sequences = entries.sequences();
            long next = 1;
            List<String> holders = shared ? List.of(holder) : List.of();
            if (!sequences.isEmpty()) {
                long top = sequences.get(sequences.size() - 1);
                Optional<LeaseEntry> latest = entries.read(top);
                if (latest.isEmpty()) {
                    continue; // its holder renewed and removed it since the listing: look again
                }
                if (latest.get().heldAt(now)) {
                    if (!claimant.continues(latest.get().job())) {
                        throw busy(table, latest.get(), now);
                    }
                    if (shared
                            && claimant.job().orElseThrow().equals(latest.get().job())) {
                        holders = latest.get().with(holder);
                    }
                    LOG.info(
                            "{} takes back the compaction lease of {} from {} of its own job or an earlier"
                                    + " attempt (entry {}{})",
                            holder,
                            table,
                            latest.get().names(),
                            top,
                            holders.size() > 1 ? ", shared with them" : "");
                }
                next = top + 1;
            }
            if (!entries.write(new LeaseEntry(next, holder, now + duration.toMillis(), claimant.job(), holders))) {
                Optional<LeaseEntry> winner = entries.read(next);
                if (winner.isPresent() && claimant.continues(winner.get().job())) {
                    // Another subtask of our own job (two restores at once) wrote it first: take it
                    // back as from an earlier attempt.
                    continue;
                }
                throw winner.map(w -> busy(table, w, now))
                        .orElseGet(() -> new CompactionLeaseException(
                                table, "another compactor took the compaction lease at the same moment"));
            }
            CompactionLease lease = new CompactionLease(entries, table, claimant, duration, clock, shared, next);
            lease.expiresAtMillis = now + duration.toMillis();
            Optional<LeaseEntry> above = lease.above(next);
            if (above.isPresent()) {
                if (!above.get().heldAt(now)) {
                    continue; // released since our write (or expired): the lease is free, take it again
                }
                if (!claimant.continues(above.get().job())) {
                    throw busy(table, above.get(), now);
                }
                if (shared && !above.get().sharedBy().contains(holder)) {
                    continue; // it does not name us: take it again, together with it
                }
                // A shared entry above that names us: the job's restores hold it together. An
                // exclusive claimant (the job's maintenance) whose own job took it back right after
                // our write keeps going as the job's holder and stops at its next renewal, which
                // finds the entry above; failing here had failed a restore (SavepointRestoreAcrossMergesTest).
                LOG.info(
                        "{} holds the compaction lease of {} with {} of its own job (entries {} and {})",
                        holder,
                        table,
                        above.get().names(),
                        next,
                        above.get().sequence());
                return lease;
            }
            LOG.info("Compaction lease of {} taken by {} (entry {}, {} s)", table, holder, next, duration.toSeconds());
            lease.entries.removeBefore(next, table);
            return lease;
        }
        throw new CompactionLeaseException(
                table, "the compaction lease changed on every read; another compactor is active, try again later");
    }

    /**
     * Fails unless our entry is the highest. Holders remove the entries below their own, and a
     * compactor that listed before such a removal can write a removed number again, unopposed by
     * put-if-absent; only the highest entry is the lease.
     */
    private void checkOnTop(long ours, long now) {
        above(ours).ifPresent(entry -> {
            throw busy(table, entry, now);
        });
    }

    /** The highest entry if it is above ours; fails if one is listed there but gone when read. */
    private Optional<LeaseEntry> above(long ours) {
        List<Long> sequences = entries.sequences();
        long top = sequences.isEmpty() ? ours : sequences.get(sequences.size() - 1);
        if (top <= ours) {
            return Optional.empty();
        }
        return Optional.of(entries.read(top)
                .orElseThrow(() -> new CompactionLeaseException(
                        table, "another compactor took the compaction lease at the same moment")));
    }

    /**
     * Extends the lease; call it before every commit.
     *
     * @throws CompactionLeaseException if another compactor took the lease after it expired, or a
     *     later attempt of the same job took it back
     */
    public void renew() {
        if (shared) {
            throw new IllegalStateException("a shared compaction lease is not renewed");
        }
        ensureNotFenced();
        long now = clock.getAsLong();
        if (!entries.write(
                new LeaseEntry(sequence + 1, holder, now + duration.toMillis(), claimant.job(), List.of()))) {
            Optional<LeaseEntry> taker = entries.read(sequence + 1);
            String name = taker.map(LeaseEntry::holder).orElse("another compactor");
            if (taker.isPresent() && claimant.job().isPresent() && taker.get().job() != null && now < expiresAtMillis) {
                throw new CompactionLeaseException(
                        table,
                        "the compaction lease of " + holder + " was taken back by " + name
                                + ", a later attempt of its job (or a job restored from its checkpoints);"
                                + " this run stops before its next commit");
            }
            throw new CompactionLeaseException(
                    table,
                    "the compaction lease of " + holder + " expired and " + name
                            + " took it over; this run stops before its next commit. Keep the lease ("
                            + duration.toSeconds() + " s) well above the time a generation's merge takes");
        }
        long written = sequence + 1;
        try {
            checkOnTop(written, now);
        } catch (CompactionLeaseException e) {
            throw new CompactionLeaseException(
                    table,
                    "the compaction lease of " + holder + " expired and another compactor took it over; this run"
                            + " stops before its next commit (" + e.getMessage() + ")");
        }
        sequence = written;
        expiresAtMillis = now + duration.toMillis();
        entries.removeBefore(sequence, table);
    }

    /**
     * Fails once the holder was fenced (its task closing): call it before every step that changes
     * the table; unlike {@link #renew} it costs no store call.
     *
     * @throws CompactionLeaseException if the holder was fenced
     */
    public void ensureNotFenced() {
        if (claimant.fenced()) {
            throw new CompactionLeaseException(
                    table,
                    holder + " is closing; this run stops before its next commit or removal and gives up the"
                            + " compaction lease");
        }
    }

    /** Ends the lease early (best effort: an unreleased lease simply expires). */
    @Override
    public void close() {
        if (released) {
            return;
        }
        released = true;
        try {
            if (shared) {
                releaseShared();
            } else if (entries.write(new LeaseEntry(sequence + 1, holder, 0, claimant.job(), List.of()))) {
                entries.removeBefore(sequence + 1, table);
            }
        } catch (RuntimeException e) {
            LOG.warn("Releasing the compaction lease of {} failed; it expires on its own", table, e);
        }
    }

    /**
     * Writes the entry on top again without us: still held by the others it names, or expired when
     * we were the last. An entry that no longer names us (it expired and was taken over) is left.
     */
    private void releaseShared() {
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            List<Long> sequences = entries.sequences();
            if (sequences.isEmpty()) {
                return;
            }
            long top = sequences.get(sequences.size() - 1);
            Optional<LeaseEntry> entry = entries.read(top);
            if (entry.isEmpty()) {
                continue;
            }
            if (!entry.get().sharedBy().contains(holder)) {
                return;
            }
            List<String> others = entry.get().without(holder);
            String named = others.isEmpty() ? holder : others.get(0);
            long expires = others.isEmpty() ? 0 : entry.get().expiresAtMillis();
            if (entries.write(new LeaseEntry(top + 1, named, expires, claimant.job(), others))) {
                if (!others.isEmpty()) {
                    LOG.info(
                            "{} released its share of the compaction lease of {}; {} still hold it",
                            holder,
                            table,
                            others);
                }
                entries.removeBefore(top + 1, table);
                return;
            }
        }
        LOG.warn("The compaction lease of {} changed on every read; {} leaves its share to expire", table, holder);
    }

    /** The highest entry, re-listed while its holder removes entries under a reader. */
    public static Optional<CompactionLeaseHolder> latest(ObjectStore store) {
        LeaseEntries entries = new LeaseEntries(store);
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            List<Long> sequences = entries.sequences();
            if (sequences.isEmpty()) {
                return Optional.empty();
            }
            Optional<LeaseEntry> top = entries.read(sequences.get(sequences.size() - 1));
            if (top.isPresent()) {
                return top.map(e -> new CompactionLeaseHolder(e.holder(), Instant.ofEpochMilli(e.expiresAtMillis())));
            }
        }
        throw new CompactionLeaseException(PREFIX, "the compaction lease changed on every read; try again");
    }

    private static CompactionLeaseException busy(String table, LeaseEntry holder, long now) {
        return new CompactionLeaseException(
                table,
                "another compactor or collector (" + holder.names() + ") holds the compaction lease until "
                        + Instant.ofEpochMilli(holder.expiresAtMillis()) + " ("
                        + (holder.expiresAtMillis() - now) / 1000
                        + " s from now); run one compactor or collector per table at a time: the sink's own"
                        + " ('sink.compaction.enabled', 'sink.gc.enabled') or a standalone one, not both");
    }

    public static String key(long sequence) {
        return LeaseEntries.key(sequence);
    }
}
