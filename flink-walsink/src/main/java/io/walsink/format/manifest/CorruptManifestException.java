package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** A shard manifest (or its version hint) whose bytes cannot be decoded or contradict its name. */
@Internal
public class CorruptManifestException extends FormatException {
    public CorruptManifestException(String location, String message, Throwable cause) {
        super(location, message, cause);
    }

    public CorruptManifestException(String location, String message) {
        this(location, message, null);
    }
}
