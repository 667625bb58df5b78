package io.walsink.storage;

/** A put-if-absent found the key taken; the stored object is unchanged. */
public class ObjectAlreadyExistsException extends StorageException {
    public ObjectAlreadyExistsException(String location) {
        super(location, "object already exists", false);
    }
}
