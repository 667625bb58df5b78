package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A column whose Arrow type the {@code bucket} transform cannot hash. */
@Internal
public final class UnsupportedBucketTypeException extends InputException {

    private static final long serialVersionUID = 1L;

    private final transient ArrowType type;

    public UnsupportedBucketTypeException(ArrowType type) {
        super("Arrow type " + type + " is not supported as a bucket sharding source; supported:"
                + " bool, int8/16/32/64, uint8/16/32/64, date32, time32, time64, timestamp,"
                + " float32, float64, utf8, large utf8, binary, large binary");
        this.type = type;
    }

    public ArrowType type() {
        return type;
    }
}
