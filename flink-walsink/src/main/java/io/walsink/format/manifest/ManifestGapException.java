package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * The manifest versions of a shard are not contiguous from 1. Versions are only ever created at
 * {@code latest + 1}, so a hole means lost or deleted objects; guessing past it could resurrect
 * an old writer epoch or drop published SSTables.
 */
@Internal
public class ManifestGapException extends FormatException {
    public ManifestGapException(String location, String message) {
        super(location, message, null);
    }
}
