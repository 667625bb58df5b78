package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * An object's bytes, written on demand into a channel, so that a store can pass them on as they
 * come (a local file) instead of holding them in one array first. Every call writes the same
 * bytes: a retried put writes them again.
 */
@Internal
public interface ObjectContent {
    /** Writes the object's bytes into {@code out}, which it leaves open. */
    void writeTo(WritableByteChannel out) throws IOException;

    /** About how many bytes {@link #writeTo} writes: a size for a buffer that collects them. */
    long expectedBytes();
}
