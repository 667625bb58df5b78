package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * An object a restore or a read needs was removed by garbage collection: the checkpoint or
 * savepoint being restored is older than the retention the collector ran with. The message names
 * the object, the retention and the floors; retrying cannot help, restore a newer checkpoint.
 */
@Internal
public class GarbageCollectedException extends FormatException {
    public GarbageCollectedException(String location, String message) {
        super(location, message, null);
    }
}
