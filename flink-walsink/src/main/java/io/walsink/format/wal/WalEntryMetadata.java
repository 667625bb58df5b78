package io.walsink.format.wal;

/** Schema-level metadata keys of a WAL entry. */
final class WalEntryMetadata {
    /** Epoch of the writer that appended the entry (decimal); required on every entry. */
    static final String WRITER_EPOCH = "writer_epoch";
    /** Memtable generation of the entry's rows (decimal); SPEC profile only. */
    static final String GENERATION = "generation";
    /** {@code "true"} on a fence sentinel: no fields, no batches. */
    static final String FENCE_SENTINEL = "fence_sentinel";

    private WalEntryMetadata() {}
}
