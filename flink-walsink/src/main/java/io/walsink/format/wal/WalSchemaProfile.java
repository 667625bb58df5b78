package io.walsink.format.wal;

import io.walsink.annotation.PublicEvolving;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which revision of the WAL entry schema to write. lance-core 7.0.0 replays an entry only if its
 * schema equals the table schema (nullability and schema metadata included; {@code generation} or
 * {@code lance:field_id} make it refuse) and ignores {@code _tombstone}, so tables shared with it
 * use {@link #LANCE_JAVA_7_0}, which cannot record deletes.
 */
@PublicEvolving
public enum WalSchemaProfile {
    /** The newest MemWAL specification: generation, field ids, {@code _tombstone}. */
    SPEC("spec", true),
    /** What lance-core 7.0.0 replays: the table schema as is; no generation, field ids or tombstones. */
    LANCE_JAVA_7_0("lance-java-7.0", false);

    private final String profileName;
    private final boolean specMetadata;

    WalSchemaProfile(String profileName, boolean specMetadata) {
        this.profileName = profileName;
        this.specMetadata = specMetadata;
    }

    /** The name used in configuration ({@code wal.schema-profile}). */
    public String profileName() {
        return profileName;
    }

    /** Whether entries carry {@code generation}, {@code lance:field_id} and {@code _tombstone}. */
    public boolean hasSpecMetadata() {
        return specMetadata;
    }

    public boolean supportsDeletes() {
        return specMetadata;
    }

    public static WalSchemaProfile parse(String name) {
        for (WalSchemaProfile p : values()) {
            if (p.profileName.equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown WAL schema profile '" + name + "'; valid: "
                + Arrays.stream(values()).map(WalSchemaProfile::profileName).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return profileName;
    }
}
