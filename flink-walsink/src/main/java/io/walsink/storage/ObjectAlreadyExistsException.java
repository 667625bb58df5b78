package io.walsink.storage;

import io.walsink.annotation.Internal;

/** A put-if-absent found the key taken; the stored object is unchanged. */
@Internal
public class ObjectAlreadyExistsException extends StorageException {
    public ObjectAlreadyExistsException(String location) {
        super(location, "object already exists", false);
    }
}
