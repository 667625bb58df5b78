package io.walsink.format.key;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;
import org.apache.arrow.vector.types.pojo.Field;

/** A primary-key column whose Arrow type has no order-preserving key encoding. */
@Internal
public final class UnsupportedKeyTypeException extends InputException {

    private static final long serialVersionUID = 1L;

    public UnsupportedKeyTypeException(Field field, String reason) {
        super("primary-key column '" + field.getName() + "' has type " + field.getType() + ", which cannot be a key: "
                + reason);
    }
}
