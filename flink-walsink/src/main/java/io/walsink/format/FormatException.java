package io.walsink.format;

/**
 * Bytes or a folder that do not follow the MemWAL format. The location names the object (or
 * folder) at fault, so an operator can find it.
 */
public class FormatException extends RuntimeException {
    private final String location;

    public FormatException(String location, String message, Throwable cause) {
        super(location + ": " + message, cause);
        this.location = location;
    }

    /** The object or folder the problem is about, as a user would write it. */
    public String location() {
        return location;
    }
}
