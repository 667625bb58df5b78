package io.walsink.format.manifest;

import static io.walsink.format.manifest.SsTable.requireUnsigned;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One immutable version of a shard's state, proto {@code lance.table.ShardManifest}.
 *
 * @param version this manifest's number (1, 2, ...), equal to the number in its file name
 * @param writerEpoch epoch of the writer that owns the shard; a claim increments it
 * @param replayAfterWalEntryPosition last WAL position whose rows all sit in published SSTables
 * @param walEntryPositionLastSeen a hint for finding the WAL tip, never authoritative
 * @param currentGeneration generation the next flushed SSTable gets (1 for a new shard)
 * @param shardSpecId id of the sharding spec the field entries follow (0 = none)
 * @param shardId the shard's UUID, or null when the manifest does not carry one
 */
@Internal
public record ShardManifest(
        long version,
        long writerEpoch,
        long replayAfterWalEntryPosition,
        long walEntryPositionLastSeen,
        long currentGeneration,
        List<SsTable> sstables,
        int shardSpecId,
        UUID shardId,
        List<ShardFieldEntry> shardFieldEntries,
        ShardStatus status) {

    public ShardManifest {
        requireUnsigned("version", version);
        requireUnsigned("writerEpoch", writerEpoch);
        requireUnsigned("replayAfterWalEntryPosition", replayAfterWalEntryPosition);
        requireUnsigned("walEntryPositionLastSeen", walEntryPositionLastSeen);
        requireUnsigned("currentGeneration", currentGeneration);
        sstables = List.copyOf(sstables);
        shardFieldEntries = List.copyOf(shardFieldEntries);
        Objects.requireNonNull(status, "status");
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .version(version)
                .writerEpoch(writerEpoch)
                .replayAfterWalEntryPosition(replayAfterWalEntryPosition)
                .walEntryPositionLastSeen(walEntryPositionLastSeen)
                .currentGeneration(currentGeneration)
                .sstables(sstables)
                .shardSpecId(shardSpecId)
                .shardId(shardId)
                .shardFieldEntries(shardFieldEntries)
                .status(status);
    }

    public ShardManifest withVersion(long v) {
        return toBuilder().version(v).build();
    }

    public ShardManifest withWriterEpoch(long epoch) {
        return toBuilder().writerEpoch(epoch).build();
    }

    public ShardManifest withStatus(ShardStatus s) {
        return toBuilder().status(s).build();
    }

    /** The same manifest SEALED: writers that know the status claim the shard no more. */
    public ShardManifest sealed() {
        return withStatus(ShardStatus.SEALED);
    }

    /** The same manifest ACTIVE. */
    public ShardManifest active() {
        return withStatus(ShardStatus.ACTIVE);
    }

    public boolean isSealed() {
        return status == ShardStatus.SEALED;
    }

    /** Mutable assembly of a manifest; every field starts at its proto3 default. */
    public static final class Builder {
        private long version;
        private long writerEpoch;
        private long replayAfterWalEntryPosition;
        private long walEntryPositionLastSeen;
        private long currentGeneration;
        private final List<SsTable> sstables = new ArrayList<>();
        private int shardSpecId;
        private UUID shardId;
        private final List<ShardFieldEntry> shardFieldEntries = new ArrayList<>();
        private ShardStatus status = ShardStatus.ACTIVE;

        private Builder() {}

        public Builder version(long v) {
            this.version = v;
            return this;
        }

        public Builder writerEpoch(long v) {
            this.writerEpoch = v;
            return this;
        }

        public Builder replayAfterWalEntryPosition(long v) {
            this.replayAfterWalEntryPosition = v;
            return this;
        }

        public Builder walEntryPositionLastSeen(long v) {
            this.walEntryPositionLastSeen = v;
            return this;
        }

        public Builder currentGeneration(long v) {
            this.currentGeneration = v;
            return this;
        }

        public Builder sstables(List<SsTable> all) {
            sstables.clear();
            sstables.addAll(all);
            return this;
        }

        public Builder addSstable(SsTable t) {
            sstables.add(Objects.requireNonNull(t));
            return this;
        }

        public Builder shardSpecId(int v) {
            this.shardSpecId = v;
            return this;
        }

        public Builder shardId(UUID v) {
            this.shardId = v;
            return this;
        }

        public Builder shardFieldEntries(List<ShardFieldEntry> all) {
            shardFieldEntries.clear();
            shardFieldEntries.addAll(all);
            return this;
        }

        public Builder addShardFieldEntry(ShardFieldEntry e) {
            shardFieldEntries.add(Objects.requireNonNull(e));
            return this;
        }

        public Builder status(ShardStatus v) {
            this.status = v;
            return this;
        }

        public ShardManifest build() {
            return new ShardManifest(
                    version,
                    writerEpoch,
                    replayAfterWalEntryPosition,
                    walEntryPositionLastSeen,
                    currentGeneration,
                    sstables,
                    shardSpecId,
                    shardId,
                    shardFieldEntries,
                    status);
        }
    }
}
