package io.walsink.maintenance.rollback;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.EpochConflictException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ManifestVersionTakenException;
import io.walsink.format.manifest.ShardClaimer;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.TableInfo;
import io.walsink.format.wal.AnyProfileDecoder;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaMismatchException;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The rollback's work on one shard: finding rows a writer holds only in the WAL, and claiming the
 * shard so that it reads as nothing above the base table.
 */
final class ShardFence {
    private final ObjectStore store;
    private final AnyProfileDecoder decoder;
    private final WalEntryCodec codec;

    ShardFence(ObjectStore store, TableInfo table, BufferAllocator allocator) {
        this.store = store;
        this.decoder = new AnyProfileDecoder(table, allocator);
        this.codec = new WalEntryCodec(WalStorageSchema.of(table, WalSchemaProfile.values()[0]), allocator);
    }

    /** A shard's latest manifest; empty for a shard without one or a sealed one (nothing writes it). */
    Optional<ShardManifest> latest(UUID shard) {
        return new ManifestStore(store, shard).readLatest().filter(m -> !m.isSealed());
    }

    /**
     * The first WAL position past the manifest's replay position that holds rows (not a fence
     * sentinel): rows no published SSTable holds, of a running writer or one stopped without a
     * savepoint. Empty if there is none.
     */
    OptionalLong rowsPastReplay(ShardManifest m) {
        WalLog wal = new WalLog(store, m.shardId(), codec);
        long tip = wal.findTip(m.walEntryPositionLastSeen());
        for (long p = m.replayAfterWalEntryPosition() + 1; p < tip; p++) {
            byte[] bytes;
            try {
                bytes = store.get(wal.key(p));
            } catch (ObjectNotFoundException gone) {
                continue; // collected: its rows are in a published SSTable
            }
            try (AnyProfileDecoder.Decoded d = decoder.decode(wal.key(p), p, bytes)) {
                if (!d.entry().sentinel()) {
                    return OptionalLong.of(p);
                }
            } catch (WalSchemaMismatchException columnsOfAnotherSchema) {
                return OptionalLong.of(p);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Claims the shard with a new epoch, writes a fence sentinel at the WAL tip, then a manifest
     * listing no SSTables, replaying nothing before the sentinel and giving out generations above
     * every SSTable folder. Returns the claim's epoch; fails if another writer claimed the shard in
     * between (the caller claims again).
     */
    long claim(ShardManifest latest) {
        UUID shard = latest.shardId();
        ManifestStore manifests = new ManifestStore(store, shard);
        ShardManifest claimed = new ShardClaimer(manifests)
                .claim(new ShardPlacement(latest.shardSpecId(), latest.shardFieldEntries()), 0);
        long epoch = claimed.writerEpoch();
        WalLog wal = new WalLog(store, shard, codec);
        long tip = wal.findTip(claimed.walEntryPositionLastSeen());
        long sentinel = ShardOpener.writeSentinel(manifests, wal, codec.encodeSentinel(epoch), epoch, tip);
        store.removeLeftovers(TableLayout.shardFolder(shard));
        long next = Math.max(claimed.currentGeneration(), ShardOpener.highestSsTableFolder(store, shard) + 1);
        manifests.writeNext(
                claimed,
                claimed.toBuilder()
                        .replayAfterWalEntryPosition(sentinel)
                        .walEntryPositionLastSeen(sentinel)
                        .currentGeneration(next)
                        .sstables(List.of())
                        .build());
        return epoch;
    }

    /** As {@link #claim}, empty when a writer claimed the shard in between. */
    OptionalLong tryClaim(ShardManifest latest) {
        try {
            return OptionalLong.of(claim(latest));
        } catch (ManifestVersionTakenException | EpochConflictException | ShardPoisonedException lost) {
            return OptionalLong.empty();
        }
    }
}
