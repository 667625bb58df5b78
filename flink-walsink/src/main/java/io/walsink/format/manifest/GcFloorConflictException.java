package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * A garbage collector found that another one recorded a shard's floor between its own reading of
 * the floor and its writing of the next one: two collectors ran on the table at once (one whose
 * lease was taken over, or a release that took no lease). The run removed nothing more from the
 * shard; the other collector's floor stands. Run one collector per table at a time.
 */
@Internal
public class GcFloorConflictException extends FormatException {
    private static final long serialVersionUID = 1L;

    public GcFloorConflictException(String location, String message) {
        super(location, message, null);
    }
}
