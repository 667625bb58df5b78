package io.walsink.storage;

import io.walsink.annotation.PublicEvolving;

/** A read of a key that does not exist. */
@PublicEvolving
public class ObjectNotFoundException extends StorageException {
    public ObjectNotFoundException(String location) {
        super(location, "object not found", false);
    }
}
