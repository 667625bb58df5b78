package io.walsink.maintenance.compaction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of compaction progress, shared by the engine and each shard's part of a run. Its category
 * is the one operators configure (docs/operations.md): it names the API type a user runs, so moving
 * the work between classes does not silence a configured logger.
 */
final class CompactionLog {
    static final Logger LOG = LoggerFactory.getLogger("io.walsink.maintenance.Compactor");

    private CompactionLog() {}
}
