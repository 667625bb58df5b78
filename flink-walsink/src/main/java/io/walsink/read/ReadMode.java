package io.walsink.read;

import io.walsink.annotation.PublicEvolving;

/** How much of a MemWAL table a read includes. */
@PublicEvolving
public enum ReadMode {
    /**
     * The base table and the SSTables published in the shard manifests: what lance-core and
     * LanceDB see, and only rows of completed checkpoints.
     */
    COMMITTED,
    /**
     * COMMITTED plus every WAL entry after each shard's {@code replay_after} position: every row
     * a writer made durable, including rows of a checkpoint that may still fail.
     */
    LATEST
}
