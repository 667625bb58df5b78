package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** The table declares no (unenforced) primary key; MemWAL needs one for last-write-wins. */
@Internal
public class MissingPrimaryKeyException extends FormatException {
    public MissingPrimaryKeyException(String location, String message, Throwable cause) {
        super(location, message, cause);
    }
}
