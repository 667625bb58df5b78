package io.walsink.format;

/**
 * Stored data (a table, a WAL entry, a manifest) that does not have the shape the MemWAL format
 * requires. {@link #location()} names what was read, as a user would write it.
 */
public class FormatException extends RuntimeException {
    private final String location;

    public FormatException(String location, String message, Throwable cause) {
        super(location + ": " + message, cause);
        this.location = location;
    }

    /** The object, file or table the problem is about. */
    public String location() {
        return location;
    }
}
