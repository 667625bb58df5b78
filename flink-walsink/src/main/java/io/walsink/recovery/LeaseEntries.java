package io.walsink.recovery;

import io.walsink.format.TableLayout;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.OutcomeUnknownException;
import io.walsink.storage.StorageException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects of a table's compaction lease in the store, {@code _walsink/compaction-lease/{n}}:
 * listing their numbers, reading one, writing the next with put-if-absent, removing those below
 * the holder's. {@link CompactionLease} decides what to write; this class only knows how an entry
 * lands, including a write whose outcome the store could not tell.
 */
final class LeaseEntries {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseEntries.class);
    static final String PREFIX = TableLayout.COMPACTION_LEASE_FOLDER;
    private static final int WRITE_ATTEMPTS = 3;

    private final ObjectStore store;

    LeaseEntries(ObjectStore store) {
        this.store = store;
    }

    /** The numbers of the entries present, lowest first. */
    List<Long> sequences() {
        return store.listAll(PREFIX).stream()
                .map(m -> sequenceOf(m.key()))
                .filter(n -> n != null)
                .sorted()
                .toList();
    }

    /** Entry {@code sequence}; empty if it is not there (its holder removed it meanwhile). */
    Optional<LeaseEntry> read(long sequence) {
        try {
            return Optional.of(LeaseEntry.decode(sequence, store.get(key(sequence)), PREFIX + sequence));
        } catch (ObjectNotFoundException e) {
            return Optional.empty(); // removed by its holder meanwhile
        }
    }

    /**
     * Writes entry {@code sequence}; false if another compactor wrote it first. A transient failure
     * is tried again a few times beyond the store's own retries: a release or renewal lost to one
     * throttled request would leave the table's compaction blocked until the lease expires.
     */
    boolean write(LeaseEntry entry) {
        long sequence = entry.sequence();
        byte[] body = entry.encode();
        for (int attempt = 1; ; attempt++) {
            try {
                store.putIfAbsent(key(sequence), body);
                return true;
            } catch (ObjectAlreadyExistsException e) {
                // A retry after a failure that wrote nothing finds a peer's entry, never our own.
                return false;
            } catch (AmbiguousWriteException | OutcomeUnknownException e) {
                // Our own write may have landed: the entry says whose it is.
                Optional<LeaseEntry> landed = read(sequence);
                if (landed.isPresent()) {
                    return landed.get().equals(entry);
                }
                if (attempt >= WRITE_ATTEMPTS) {
                    throw e;
                }
            } catch (StorageException e) {
                if (!e.isTransient() || attempt >= WRITE_ATTEMPTS) {
                    throw e;
                }
                LOG.debug("Writing compaction lease entry {} failed (attempt {}); trying again", sequence, attempt, e);
            }
        }
    }

    /** Removes the entries below {@code keep}, best effort: what is left the next holder removes. */
    void removeBefore(long keep, String table) {
        try {
            for (ObjectMeta meta : store.listAll(PREFIX)) {
                Long n = sequenceOf(meta.key());
                if (n != null && n < keep) {
                    store.delete(meta.key());
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("Removing old compaction lease entries of {} failed; the next run tries again", table, e);
        }
    }

    static String key(long sequence) {
        return PREFIX + TableLayout.sequenceName(sequence);
    }

    private static Long sequenceOf(String key) {
        OptionalLong n = TableLayout.parseSequenceName(key.substring(key.lastIndexOf('/') + 1));
        return n.isPresent() ? n.getAsLong() : null;
    }
}
