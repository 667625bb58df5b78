package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A flushed memtable published in a shard manifest, proto {@code SsTable}.
 *
 * @param generation the memtable generation it holds (newer generations win per key)
 * @param path folder name relative to the shard folder, e.g. {@code a1b2c3d4_gen_1}
 * @param inMemoryBytes proto3 {@code optional}: present even when 0
 */
@Internal
public record SsTable(
        long generation,
        String path,
        OptionalLong inMemoryBytes,
        OptionalLong physicalRows,
        OptionalLong primaryKeyBytes) {

    public SsTable {
        Objects.requireNonNull(path, "path");
        requireUnsigned("generation", generation);
        inMemoryBytes = checkedOptional("inMemoryBytes", inMemoryBytes);
        physicalRows = checkedOptional("physicalRows", physicalRows);
        primaryKeyBytes = checkedOptional("primaryKeyBytes", primaryKeyBytes);
    }

    /** An SSTable without accounting. */
    public static SsTable of(long generation, String path) {
        return new SsTable(generation, path, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
    }

    public SsTable withInMemoryBytes(long bytes) {
        return new SsTable(generation, path, OptionalLong.of(bytes), physicalRows, primaryKeyBytes);
    }

    public SsTable withPhysicalRows(long rows) {
        return new SsTable(generation, path, inMemoryBytes, OptionalLong.of(rows), primaryKeyBytes);
    }

    public SsTable withPrimaryKeyBytes(long bytes) {
        return new SsTable(generation, path, inMemoryBytes, physicalRows, OptionalLong.of(bytes));
    }

    private static OptionalLong checkedOptional(String name, OptionalLong v) {
        Objects.requireNonNull(v, name);
        v.ifPresent(x -> requireUnsigned(name, x));
        return v;
    }

    static void requireUnsigned(String name, long v) {
        // uint64 on the wire; values past Long.MAX_VALUE never occur in a sane manifest.
        if (v < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + Long.toUnsignedString(v));
        }
    }
}
