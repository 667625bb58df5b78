package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What garbage collection may have removed from one shard, recorded under
 * {@code _walsink/gc/{shard}/} before it removes anything (a folder Lance does not read; see
 * {@link GcFloorRecords} for how a raise is compared-and-swapped).
 *
 * <p>The rule it records: manifest versions below {@code manifestFloor} and WAL entries at or
 * below {@code walFloor} may be absent; every version from {@code manifestFloor} up to the latest
 * and every entry above {@code walFloor} that was ever written must still exist. Readers use it
 * to tell a collected object (expected, or too old to restore: the message names the retention)
 * from a lost one (corruption). Floors only ever rise.
 *
 * @param manifestFloor lowest manifest version kept (1: none removed)
 * @param walFloor highest WAL position that may have been removed (0: none)
 * @param retention the retention the collection ran with, for messages
 * @param collectedAt when the collection that raised the floors ran
 */
@Internal
public record GcFloor(long manifestFloor, long walFloor, Duration retention, Instant collectedAt) {
    private static final Pattern FORMAT = Pattern.compile("\\s*\\{\\s*\"manifest_floor\"\\s*:\\s*(\\d{1,19})\\s*,"
            + "\\s*\"wal_floor\"\\s*:\\s*(\\d{1,19})\\s*,"
            + "\\s*\"retention\"\\s*:\\s*\"([^\"]{1,64})\"\\s*,"
            + "\\s*\"collected_at\"\\s*:\\s*\"([^\"]{1,64})\"\\s*}\\s*");

    /** Nothing collected yet. */
    public static final GcFloor NONE = new GcFloor(1, 0, Duration.ZERO, Instant.EPOCH);

    public GcFloor {
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(collectedAt, "collectedAt");
        if (manifestFloor < 1 || walFloor < 0) {
            throw new IllegalArgumentException(
                    "floors must be manifest >= 1 and WAL >= 0, got " + manifestFloor + " and " + walFloor);
        }
    }

    /** The single marker of earlier releases, relative to the table root (still read, and mirrored). */
    public static String key(UUID shardId) {
        return TableLayout.legacyGcFloorKey(shardId);
    }

    /** Whether manifest version {@code version} may be missing because it was collected. */
    public boolean collectedVersion(long version) {
        return version < manifestFloor;
    }

    /** Whether the WAL entry at {@code position} may be missing because it was collected. */
    public boolean collectedPosition(long position) {
        return position <= walFloor;
    }

    /** This floor raised to at least {@code other}'s (floors never fall). */
    public GcFloor raisedTo(GcFloor other) {
        return new GcFloor(
                Math.max(manifestFloor, other.manifestFloor),
                Math.max(walFloor, other.walFloor),
                retention,
                collectedAt);
    }

    /** "removed by garbage collection (retention PT168H, collection of ...)", for messages. */
    public String describe() {
        return "removed by garbage collection (retention " + retention + ", collection at " + collectedAt
                + "; manifest versions below " + manifestFloor + " and WAL entries up to " + walFloor
                + " may be gone)";
    }

    public byte[] encode() {
        return ("{\"manifest_floor\":" + manifestFloor + ",\"wal_floor\":" + walFloor + ",\"retention\":\"" + retention
                        + "\",\"collected_at\":\"" + collectedAt + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** @throws FormatException naming {@code location} if the bytes are not a marker */
    public static GcFloor decode(byte[] bytes, String location) {
        Matcher m = FORMAT.matcher(new String(bytes, StandardCharsets.UTF_8));
        if (!m.matches()) {
            throw new FormatException(location, "not a garbage-collection marker", null);
        }
        try {
            return new GcFloor(
                    Long.parseLong(m.group(1)),
                    Long.parseLong(m.group(2)),
                    Duration.parse(m.group(3)),
                    Instant.parse(m.group(4)));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            throw new FormatException(location, "not a garbage-collection marker: " + e.getMessage(), e);
        }
    }

    /** The shard's floor, or empty if nothing was ever collected from it. */
    public static Optional<GcFloor> read(ObjectStore store, UUID shardId) {
        return GcFloorRecords.read(store, shardId).floor();
    }

    /**
     * Raises the shard's floor to at least {@code floor} over whatever is recorded now (tools and
     * tests; a collector raises the floor it planned with, {@link GcFloorRecords#raise}).
     */
    public static void write(ObjectStore store, UUID shardId, GcFloor floor) {
        GcFloorRecords.raise(store, shardId, GcFloorRecords.read(store, shardId), floor);
    }
}
