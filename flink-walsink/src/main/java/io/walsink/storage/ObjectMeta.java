package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.time.Instant;
import java.util.Objects;

/**
 * What a head or a listing knows about one object.
 *
 * @param lastModified when the object was last written, as the store reports it (file
 *     modification time, S3 {@code Last-Modified} at one-second resolution in HEAD answers, the
 *     memory store's clock). Garbage collection compares it with its retention; nothing on the
 *     write or read path uses it.
 */
@Internal
public record ObjectMeta(String key, long size, Instant lastModified) {
    public ObjectMeta {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(lastModified, "lastModified");
    }
}
