package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** No Lance dataset at the location. */
@Internal
public class TableNotFoundException extends FormatException {
    public TableNotFoundException(String location, String message, Throwable cause) {
        super(location, message, cause);
    }
}
