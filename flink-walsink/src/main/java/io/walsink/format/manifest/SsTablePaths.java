package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.UnsafePathException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The rule for an SSTable's {@code path}: a folder name {@code {random8}_gen_{g}} ({@link
 * TableLayout#ssTableGeneration}) directly in the shard folder, {@code g} being the SSTable's
 * generation (what lance-core and our writer create).
 *
 * <p>Paths are read from manifests and checkpoint records and become dataset URIs. Checking them
 * before use keeps a corrupt or hostile object from making a reader open, or a new writer copy
 * into its own manifests, a dataset outside the shard ({@code ../../../elsewhere_gen_9}) or one
 * of another generation (which would reorder last-write-wins).
 */
@Internal
public final class SsTablePaths {
    private SsTablePaths() {}

    /** Why {@code path} cannot be the folder of an SSTable of {@code generation}; empty if it can. */
    public static Optional<String> problem(long generation, String path) {
        OptionalLong named = TableLayout.ssTableGeneration(path);
        if (named.isPresent() && named.getAsLong() == generation) {
            return Optional.empty();
        }
        return Optional.of("SSTable path '" + path + "' of generation " + Long.toUnsignedString(generation)
                + " is not a folder name {random8}_gen_" + Long.toUnsignedString(generation)
                + " in the shard folder; refusing to use it");
    }

    /** @throws UnsafePathException naming {@code location} (the object holding the path) */
    public static void require(String location, long generation, String path) {
        Optional<String> problem = problem(generation, path);
        if (problem.isPresent()) {
            throw new UnsafePathException(location, problem.get());
        }
    }

    /** Checks every SSTable of {@code m}, read from or about to be written to {@code location}. */
    static void requireAll(String location, ShardManifest m) {
        for (SsTable t : m.sstables()) {
            require(location, t.generation(), t.path());
        }
    }
}
