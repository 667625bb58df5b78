package io.walsink.table;

import static io.walsink.table.WalSinkTableOptions.SCAN_TAG;
import static io.walsink.table.WalSinkTableOptions.SCAN_TIMESTAMP;
import static io.walsink.table.WalSinkTableOptions.SCAN_VERSION;

import io.walsink.annotation.Internal;
import io.walsink.format.table.LanceTables;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.VersionAtTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.lance.Dataset;

/**
 * A bounded read of one base table version ({@code scan.version}), of the version a tag names
 * ({@code scan.tag}) or of the latest version committed at an instant ({@code scan.timestamp},
 * also what {@code FOR SYSTEM_TIME AS OF} sets on a catalog's table), resolved while the
 * statement is planned so that a missing version or tag fails before a job runs, naming what the
 * table holds.
 *
 * @param version null unless a version is given
 * @param tag null unless a tag is given
 * @param timestamp null unless an instant is given
 */
@Internal
public record TimeTravel(Long version, String tag, Instant timestamp) {

    static Optional<TimeTravel> from(ReadableConfig options) {
        Optional<Long> version = options.getOptional(SCAN_VERSION);
        Optional<String> tag = options.getOptional(SCAN_TAG);
        Optional<String> timestamp = options.getOptional(SCAN_TIMESTAMP);
        if (Stream.of(version, tag, timestamp).filter(Optional::isPresent).count() > 1) {
            throw new ValidationException("Invalid walsink options: set one of '" + SCAN_VERSION.key() + "', '"
                    + SCAN_TAG.key() + "' and '" + SCAN_TIMESTAMP.key() + "', not several");
        }
        if (version.isPresent() && version.get() < 1) {
            throw new ValidationException(
                    "Invalid walsink option '" + SCAN_VERSION.key() + "': must be positive, was " + version.get());
        }
        if (tag.isPresent() && tag.get().isBlank()) {
            throw new ValidationException("Invalid walsink option '" + SCAN_TAG.key() + "': must not be empty");
        }
        Instant at = null;
        if (timestamp.isPresent()) {
            try {
                at = VersionAtTime.parse(timestamp.get());
            } catch (IllegalArgumentException e) {
                throw new ValidationException(
                        "Invalid walsink option '" + SCAN_TIMESTAMP.key() + "': " + e.getMessage(), e);
            }
        }
        return version.isEmpty() && tag.isEmpty() && at == null
                ? Optional.empty()
                : Optional.of(new TimeTravel(version.orElse(null), tag.orElse(null), at));
    }

    /** Whether the options ask for time travel, before they are checked. */
    static boolean requested(ReadableConfig options) {
        return Stream.of(SCAN_VERSION, SCAN_TAG, SCAN_TIMESTAMP)
                .anyMatch(o -> options.getOptional(o).isPresent());
    }

    /** The version to read, checked to exist in the table now. */
    long resolve(WalSinkTableConfig table) {
        try (SnapshotReader reader = SnapshotReader.open(table.path(), table.s3(), table.schemaProfile())) {
            if (version != null) {
                return reader.pinVersion(version).baseVersion();
            }
            return (tag != null ? reader.pinTag(tag) : reader.pinTimestamp(timestamp)).baseVersion();
        } catch (IllegalArgumentException missing) {
            throw new ValidationException(missing.getMessage(), missing);
        }
    }

    /**
     * Fails unless base version {@code version} has every column in {@code columns}: a version
     * from before an ALTER TABLE ... ADD is read with the columns it has.
     */
    static void requireColumns(WalSinkTableConfig table, long version, List<String> columns) {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset latest = LanceTables.openDataset(allocator, table.lanceUri(), table.lanceStorageOptions());
                Dataset at = latest.checkoutVersion(version)) {
            List<String> held =
                    at.getSchema().getFields().stream().map(Field::getName).toList();
            List<String> missing =
                    columns.stream().filter(c -> !held.contains(c)).toList();
            if (!missing.isEmpty()) {
                throw new ValidationException("Version " + version + " of the walsink table at '" + table.path()
                        + "' has no column " + missing + " (added after it): select the columns it has, " + held);
            }
        }
    }
}
