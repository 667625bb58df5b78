package io.walsink.storage;

import io.walsink.annotation.Internal;

/** A read of a key that does not exist. */
@Internal
public class ObjectNotFoundException extends StorageException {
    public ObjectNotFoundException(String location) {
        super(location, "object not found", false);
    }
}
