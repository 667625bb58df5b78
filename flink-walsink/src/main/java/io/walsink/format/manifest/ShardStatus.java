package io.walsink.format.manifest;

/** Lifecycle of a shard; proto enum {@code ShardStatus}. */
enum ShardStatus {
    /** Accepts writer claims (proto default, never written on the wire). */
    ACTIVE(0),
    /** Closed for good: writers must not claim it. */
    SEALED(1);

    private final int number;

    ShardStatus(int number) {
        this.number = number;
    }

    public int number() {
        return number;
    }

    /** The status for a wire number, or null if this build does not know it. */
    static ShardStatus forNumber(int number) {
        for (ShardStatus s : values()) {
            if (s.number == number) {
                return s;
            }
        }
        return null;
    }
}
