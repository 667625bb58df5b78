package io.walsink.format;

import io.walsink.annotation.Internal;

/**
 * A name read from storage that would become a path outside where the format allows it (an
 * SSTable path leading out of its shard folder, a folder of another generation). Refused before
 * anything is read, copied or deleted through it; the location names the object holding it.
 */
@Internal
public class UnsafePathException extends FormatException {
    public UnsafePathException(String location, String message) {
        super(location, message, null);
    }
}
