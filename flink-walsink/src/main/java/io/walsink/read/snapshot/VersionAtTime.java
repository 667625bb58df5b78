package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import org.lance.Version;

/**
 * Which base table version was the table's at an instant: the one with the highest number among
 * those committed at or before it. Lance numbers a branch's versions one by one, so that version is
 * known for sure only when the version after it is still held (its commit time then lies after the
 * instant): when the cleanup removed it, a version committed after the one found and before the
 * instant may have been removed with it, and the instant is refused rather than answered with an
 * older version.
 */
@Internal
public final class VersionAtTime {
    private static final Pattern MILLIS = Pattern.compile("\\d{1,18}");

    private VersionAtTime() {}

    /**
     * An instant as time travel takes it: epoch milliseconds ({@code 1767225600000}) or an ISO-8601
     * date-time with its offset ({@code 2026-01-01T00:00:00Z}, {@code 2026-01-01T01:00:00.5+01:00}).
     *
     * @throws IllegalArgumentException naming the forms it takes
     */
    public static Instant parse(String text) {
        String t = text.trim();
        try {
            return MILLIS.matcher(t).matches()
                    ? Instant.ofEpochMilli(Long.parseLong(t))
                    : DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(t, Instant::from);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is neither epoch milliseconds nor an ISO-8601 date-time"
                    + " with an offset, such as 2026-01-01T00:00:00Z");
        }
    }

    /**
     * @param held the versions the table holds, in any order
     * @throws IllegalArgumentException if no held version was committed at or before {@code at},
     *     or the one found may have been superseded before {@code at} by a removed version
     */
    static long find(String table, List<Version> held, Instant at) {
        List<Version> versions =
                held.stream().sorted(Comparator.comparingLong(Version::getId)).toList();
        Version found = null;
        Version after = null;
        for (Version v : versions) {
            if (!committed(v).isAfter(at)) {
                found = v;
                after = null;
            } else if (after == null) {
                after = v;
            }
        }
        String retention = ": a version superseded longer ago than " + ExpiredSnapshot.RETENTION_OPTION
                + " is removed by the cleanup unless a tag names it";
        if (found == null) {
            Version oldest = versions.get(0);
            throw new IllegalArgumentException("Table " + table + " has no base table version committed at or before "
                    + at + ": the oldest it holds, version " + oldest.getId() + ", was committed at "
                    + committed(oldest) + retention);
        }
        if (after != null && after.getId() != found.getId() + 1) {
            throw new IllegalArgumentException(
                    "Table " + table + " cannot tell which base table version was current at "
                            + at + ": it holds version " + found.getId() + " (committed at " + committed(found)
                            + "), but versions " + (found.getId() + 1) + " to " + (after.getId() - 1)
                            + ", committed before " + committed(after) + ", are gone" + retention
                            + "; read a version or tag instead");
        }
        return found.getId();
    }

    private static Instant committed(Version version) {
        return version.getDataTime().toInstant();
    }
}
