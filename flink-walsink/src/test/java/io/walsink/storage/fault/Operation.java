package io.walsink.storage.fault;

/** The kinds of {@link io.walsink.storage.ObjectStore} calls, for counting them and aiming faults. */
public enum Operation {
    PUT_IF_ABSENT(true),
    PUT(true),
    GET(false),
    GET_RANGE(false),
    HEAD(false),
    LIST(false),
    DELETE(true);

    private final boolean write;

    Operation(boolean write) {
        this.write = write;
    }

    /** Whether the call changes stored data (and so can lose its acknowledgement). */
    public boolean isWrite() {
        return write;
    }
}
