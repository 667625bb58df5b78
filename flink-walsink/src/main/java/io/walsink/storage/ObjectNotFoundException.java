package io.walsink.storage;

/** A read of a key that does not exist. */
public class ObjectNotFoundException extends StorageException {
    public ObjectNotFoundException(String location) {
        super(location, "object not found", false);
    }
}
