package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.UnsafePathException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rule for an SSTable's {@code path}: a folder name {@code {random8}_gen_{g}} directly in the
 * shard folder, {@code g} being the SSTable's generation (what lance-core and our writer create).
 *
 * <p>Paths are read from manifests and checkpoint records and become dataset URIs. Checking them
 * before use keeps a corrupt or hostile object from making a reader open, or a new writer copy
 * into its own manifests, a dataset outside the shard ({@code ../../../elsewhere_gen_9}) or one
 * of another generation (which would reorder last-write-wins).
 */
@Internal
public final class SsTablePaths {
    private static final Pattern FOLDER = Pattern.compile("[0-9a-f]{8}_gen_([1-9][0-9]*)");

    private SsTablePaths() {}

    /** Whether {@code name} has the form of an SSTable folder, of any generation. */
    public static boolean isFolderName(String name) {
        return name != null && FOLDER.matcher(name).matches();
    }

    /** Why {@code path} cannot be the folder of an SSTable of {@code generation}; empty if it can. */
    public static Optional<String> problem(long generation, String path) {
        Matcher m = path == null ? null : FOLDER.matcher(path);
        if (m != null && m.matches() && m.group(1).equals(Long.toString(generation))) {
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
