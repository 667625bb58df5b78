package io.walsink.table;

import static io.walsink.table.WalSinkTableOptions.SCAN_TAG;
import static io.walsink.table.WalSinkTableOptions.SCAN_VERSION;

import io.walsink.annotation.Internal;
import io.walsink.read.snapshot.SnapshotReader;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;

/**
 * A bounded read of one base table version ({@code scan.version}) or of the version a tag names
 * ({@code scan.tag}), resolved while the statement is planned so that a missing version or tag
 * fails before a job runs, naming what the table holds.
 *
 * @param version null when a tag is given
 * @param tag null when a version is given
 */
@Internal
public record TimeTravel(Long version, String tag) {

    static Optional<TimeTravel> from(ReadableConfig options) {
        Optional<Long> version = options.getOptional(SCAN_VERSION);
        Optional<String> tag = options.getOptional(SCAN_TAG);
        if (version.isPresent() && tag.isPresent()) {
            throw new ValidationException(
                    "Invalid walsink options: set '" + SCAN_VERSION.key() + "' or '" + SCAN_TAG.key() + "', not both");
        }
        if (version.isPresent() && version.get() < 1) {
            throw new ValidationException(
                    "Invalid walsink option '" + SCAN_VERSION.key() + "': must be positive, was " + version.get());
        }
        if (tag.isPresent() && tag.get().isBlank()) {
            throw new ValidationException("Invalid walsink option '" + SCAN_TAG.key() + "': must not be empty");
        }
        return version.isEmpty() && tag.isEmpty()
                ? Optional.empty()
                : Optional.of(new TimeTravel(version.orElse(null), tag.orElse(null)));
    }

    /** The version to read, checked to exist in the table now. */
    long resolve(WalSinkTableConfig table) {
        try (SnapshotReader reader = SnapshotReader.open(table.path(), table.s3(), table.schemaProfile())) {
            return (version != null ? reader.pinVersion(version) : reader.pinTag(tag)).baseVersion();
        } catch (IllegalArgumentException missing) {
            throw new ValidationException(missing.getMessage(), missing);
        }
    }
}
