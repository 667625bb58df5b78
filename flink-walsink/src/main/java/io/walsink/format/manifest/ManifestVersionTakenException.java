package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * Another writer created this manifest version first (put-if-absent lost). The caller must
 * reload the latest manifest and decide again; nothing was written.
 */
@Internal
public class ManifestVersionTakenException extends FormatException {
    private final long version;

    public ManifestVersionTakenException(String location, long version, Throwable cause) {
        super(location, "manifest version " + version + " already exists (lost a race; reload)", cause);
        this.version = version;
    }

    public long version() {
        return version;
    }
}
