package io.walsink.cli;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.wal.AnyProfileDecoder;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * The checks of {@code walsink verify} that need a shard's WAL entries decoded: every entry decodes
 * in one of the supported schema profiles, and writer epochs never decrease along the WAL (a
 * claim raises the epoch before its writer appends, so a lower epoch after a higher one is a
 * fenced writer's entry that got past the fence).
 */
@Internal
final class WalEntryCheck {
    private final ObjectStore store;
    private final AnyProfileDecoder decoder;
    private final UnaryOperator<String> location;

    /** @param location turns a key relative to the table into what a user reads in the report */
    WalEntryCheck(ObjectStore store, AnyProfileDecoder decoder, UnaryOperator<String> location) {
        this.store = store;
        this.decoder = decoder;
        this.location = location;
    }

    /** Problems of the entries at {@code positions} (those present), in position order. */
    List<String> check(UUID shard, TreeSet<Long> positions) {
        List<String> problems = new ArrayList<>();
        long maxEpoch = 0;
        long maxAt = 0;
        for (long p : positions) {
            String key = TableLayout.walEntryKey(shard, p);
            String where = location.apply(key);
            byte[] bytes;
            try {
                bytes = store.get(key);
            } catch (ObjectNotFoundException collectedMeanwhile) {
                continue; // garbage collection removed it after the listing; the gap check judges that
            }
            try (AnyProfileDecoder.Decoded d = decoder.decode(where, p, bytes)) {
                long epoch = d.entry().writerEpoch();
                if (epoch < maxEpoch) {
                    problems.add(where + ": writer_epoch went back along the WAL: " + epoch + " at position " + p
                            + " after " + maxEpoch + " at position " + maxAt
                            + " (an entry of a fenced writer after its successor's)");
                } else {
                    maxEpoch = epoch;
                    maxAt = p;
                }
            } catch (FormatException e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }
}
