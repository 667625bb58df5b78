package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.OutcomeUnknownException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a shard's {@link GcFloor} is kept, compared-and-swapped with nothing but put-if-absent:
 * records {@code _walsink/gc/{shard}/{n, 20 digits}.json}, the highest number being the floor. A
 * collector raises the floor it read (record n) by writing record n + 1; of two collectors that
 * read the same record only one can write its successor, and the other fails with {@link
 * GcFloorConflictException} before it removes anything. A writer then checks that no higher record
 * exists (records below the newest are removed, so a removed number can be written again), and
 * removes the records below its own.
 *
 * <p>The single marker {@code _walsink/gc/{shard}.json} of earlier releases still counts (the floor
 * is the higher of the two, floors only rise), and every raise also rewrites it, best effort, for
 * readers of those releases.
 */
@Internal
public final class GcFloorRecords {
    private static final Logger LOG = LoggerFactory.getLogger(GcFloorRecords.class);
    private static final int READ_ATTEMPTS = 5;
    private static final String JSON = ".json";

    private GcFloorRecords() {}

    /**
     * A shard's floor as read, with the number of the record it came from.
     *
     * @param sequence the highest record; 0 when there is none (nothing collected, or only by an
     *     earlier release)
     * @param floor the floor; empty when nothing was ever collected from the shard
     */
    public record Recorded(long sequence, Optional<GcFloor> floor) {
        public Recorded {
            Objects.requireNonNull(floor, "floor");
        }

        /** The floor, or {@link GcFloor#NONE}. */
        public GcFloor floorOrNone() {
            return floor.orElse(GcFloor.NONE);
        }
    }

    static String prefix(UUID shardId) {
        return TableLayout.gcFloorFolder(shardId);
    }

    static String key(UUID shardId, long sequence) {
        return prefix(shardId) + TableLayout.sequenceName(sequence) + JSON;
    }

    /** The shard's floor and the record it is in. */
    public static Recorded read(ObjectStore store, UUID shardId) {
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            Optional<GcFloor> legacy = readObject(store, GcFloor.key(shardId));
            List<Long> sequences = sequences(store, shardId);
            if (sequences.isEmpty()) {
                return new Recorded(0, legacy);
            }
            long top = sequences.get(sequences.size() - 1);
            Optional<GcFloor> floor = readObject(store, key(shardId, top));
            if (floor.isPresent()) {
                return new Recorded(
                        top, Optional.of(legacy.map(floor.get()::raisedTo).orElse(floor.get())));
            }
            // Removed since the listing: a higher record exists now, look again.
        }
        throw new FormatException(
                location(store, prefix(shardId)),
                "the garbage-collection floor changed on every read; try again",
                null);
    }

    /**
     * Records {@code next} (raised to at least what {@code seen} holds) as the successor of {@code
     * seen}.
     *
     * @throws GcFloorConflictException if another collector recorded a floor since {@code seen} was
     *     read; nothing of ours is then the floor
     */
    public static void raise(ObjectStore store, UUID shardId, Recorded seen, GcFloor next) {
        GcFloor floor = seen.floor().map(next::raisedTo).orElse(next);
        long ours = seen.sequence() + 1;
        String key = key(shardId, ours);
        byte[] body = floor.encode();
        try {
            store.putIfAbsent(key, body);
        } catch (ObjectAlreadyExistsException e) {
            throw conflict(store, shardId, ours);
        } catch (AmbiguousWriteException | OutcomeUnknownException e) {
            // Our own write may have landed: the record's bytes say whose it is.
            byte[] landed;
            try {
                landed = store.get(key);
            } catch (ObjectNotFoundException absent) {
                throw e;
            }
            if (!Arrays.equals(landed, body)) {
                throw conflict(store, shardId, ours);
            }
        }
        List<Long> sequences = sequences(store, shardId);
        if (!sequences.isEmpty() && sequences.get(sequences.size() - 1) > ours) {
            throw conflict(store, shardId, sequences.get(sequences.size() - 1));
        }
        try {
            store.put(GcFloor.key(shardId), body); // for readers of earlier releases
            for (long s : sequences) {
                if (s < ours) {
                    store.delete(key(shardId, s));
                }
            }
        } catch (RuntimeException e) {
            LOG.debug(
                    "Tidying the garbage-collection floor records of shard {} failed; the next run does it",
                    shardId,
                    e);
        }
    }

    private static GcFloorConflictException conflict(ObjectStore store, UUID shardId, long theirs) {
        return new GcFloorConflictException(
                location(store, key(shardId, theirs)),
                "another collector recorded the garbage-collection floor of shard " + shardId
                        + " at the same time; this run removes nothing more from the shard. Run one collector"
                        + " per table at a time");
    }

    private static List<Long> sequences(ObjectStore store, UUID shardId) {
        String prefix = prefix(shardId);
        return store.listAll(prefix).stream()
                .map(ObjectMeta::key)
                .map(k -> k.substring(prefix.length()))
                .filter(name -> name.endsWith(JSON))
                .map(name -> TableLayout.parseSequenceName(name.substring(0, name.length() - JSON.length())))
                .filter(OptionalLong::isPresent)
                .map(OptionalLong::getAsLong)
                .sorted()
                .toList();
    }

    private static Optional<GcFloor> readObject(ObjectStore store, String key) {
        try {
            return Optional.of(GcFloor.decode(store.get(key), location(store, key)));
        } catch (ObjectNotFoundException absent) {
            return Optional.empty();
        }
    }

    static String location(ObjectStore store, String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }
}
