package io.walsink.table.stream;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.SsTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * How far a continuous read of one shard got, as a checkpoint records it. Generations found in
 * manifests but not yet emitted are kept here with their SSTable paths, because the manifest
 * versions that listed them may be the only ones that ever did (a writer drops merged
 * generations from later versions), so a restore must not depend on finding them again.
 *
 * @param manifestVersion the last manifest version whose generations are emitted or queued; 0: none read
 * @param emittedThrough the last generation all of whose rows were emitted (or that the snapshot held)
 * @param queued generations above it, found and not yet fully emitted, ascending
 * @param rowsEmitted rows of the first queued generation already emitted (its storage order is fixed)
 */
@Internal
public record ShardCursor(
        UUID shardId, long manifestVersion, long emittedThrough, List<SsTable> queued, long rowsEmitted) {

    public ShardCursor {
        Objects.requireNonNull(shardId, "shardId");
        queued = List.copyOf(queued);
        if (manifestVersion < 0 || emittedThrough < 0 || rowsEmitted < 0 || (queued.isEmpty() && rowsEmitted > 0)) {
            throw new IllegalArgumentException("invalid cursor of shard " + shardId + ": manifest version "
                    + manifestVersion + ", emitted through " + emittedThrough + ", rows emitted " + rowsEmitted);
        }
    }

    /** A shard not read yet: every generation it publishes is new. */
    public static ShardCursor fromStart(UUID shardId) {
        return new ShardCursor(shardId, 0, 0, List.of(), 0);
    }

    /** Adds the generations a walk of the manifests up to {@code version} found beyond what is known. */
    ShardCursor found(long version, List<SsTable> generations) {
        long known = queued.isEmpty()
                ? emittedThrough
                : queued.get(queued.size() - 1).generation();
        List<SsTable> more = new ArrayList<>(queued);
        for (SsTable t : generations) {
            if (t.generation() > known) {
                more.add(SsTable.of(t.generation(), t.path()));
                known = t.generation();
            }
        }
        return new ShardCursor(shardId, Math.max(manifestVersion, version), emittedThrough, more, rowsEmitted);
    }

    /** The generation whose rows come next, or null when none is queued. */
    SsTable next() {
        return queued.isEmpty() ? null : queued.get(0);
    }

    ShardCursor emitted(long rows) {
        return new ShardCursor(shardId, manifestVersion, emittedThrough, queued, rows);
    }

    /** The first queued generation is emitted whole. */
    ShardCursor generationDone() {
        return new ShardCursor(
                shardId, manifestVersion, queued.get(0).generation(), queued.subList(1, queued.size()), 0);
    }
}
