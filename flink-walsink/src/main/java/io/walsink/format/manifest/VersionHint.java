package io.walsink.format.manifest;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code manifest/version_hint.json} ({@link io.walsink.format.TableLayout#versionHintKey}): exactly
 * {@code {"version":N}}. Only a starting point for finding the latest version; it may lag behind (a
 * writer crashed before updating it).
 */
final class VersionHint {
    // Lance writes no spaces; accept them anyway, a hint is advisory.
    private static final Pattern FORMAT = Pattern.compile("\\s*\\{\\s*\"version\"\\s*:\\s*(\\d{1,19})\\s*}\\s*");

    private VersionHint() {}

    static byte[] encode(long version) {
        return ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** The version named by the hint, or empty if the bytes are not a usable hint. */
    static OptionalLong parse(byte[] bytes) {
        Matcher m = FORMAT.matcher(new String(bytes, StandardCharsets.UTF_8));
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            long v = Long.parseLong(m.group(1));
            return v >= 1 ? OptionalLong.of(v) : OptionalLong.empty();
        } catch (NumberFormatException tooLarge) {
            return OptionalLong.empty();
        }
    }
}
