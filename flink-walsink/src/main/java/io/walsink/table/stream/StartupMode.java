package io.walsink.table.stream;

import io.walsink.annotation.Internal;
import java.util.Locale;

/** Where a SELECT in streaming runtime mode starts ({@code scan.startup-mode}). */
@Internal
public enum StartupMode {
    /** The pinned snapshot as +I rows, then every generation published after it. */
    INITIAL,
    /** Only generations published after the job started. */
    LATEST,
    /** The pinned snapshot and nothing after it: the bounded scan, as in batch runtime mode. */
    SNAPSHOT;

    /** @throws IllegalArgumentException naming the values allowed */
    public static StartupMode parse(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "initial" -> INITIAL;
            case "latest" -> LATEST;
            case "snapshot" -> SNAPSHOT;
            default -> throw new IllegalArgumentException("must be initial, latest or snapshot, was '" + value + "'");
        };
    }

    public boolean continuous() {
        return this != SNAPSHOT;
    }
}
