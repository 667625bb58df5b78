package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.RetainedBaseVersions;
import io.walsink.testing.LanceRows;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.lance.Dataset;
import org.lance.Ref;
import org.lance.Version;
import org.lance.compaction.CompactionOptions;

/**
 * The housekeeping a {@link RestoreSchedule} runs between its rounds, as time passing would make
 * it: base-table cleanup (now and then after a file compaction) and garbage collection of
 * manifests, WAL and SSTables, each run at the moment when the oldest thing a retained checkpoint
 * or a live writer still needs is just inside the retention, so that each removes everything
 * older; and the tags and branches a Lance user makes on the base table, which both must keep.
 *
 * <p>Time is simulated by the clocks the runs are given, not waited for: the cleanup's clock is
 * set from the recorded write time of the oldest base version needed (lance-core's own clock), the
 * collector's a day ahead, so that every object is older than the retention and only the manifest
 * versions needed are kept.
 */
final class TableHousekeeping {
    private static final Duration RETENTION = Duration.ofHours(1);

    private final CompactionFixture f;
    private final LeaseClaimant job;
    /** Tag or branch name -> the base version it names. */
    private final Map<String, Long> tags = new LinkedHashMap<>();

    private final Map<String, Long> branches = new LinkedHashMap<>();
    /** Tag or branch name -> the rows of its version when it was made, by id. */
    private final Map<String, List<Map<String, Object>>> rowsWhenMade = new LinkedHashMap<>();

    TableHousekeeping(CompactionFixture f, LeaseClaimant job) {
        this.f = f;
        this.job = job;
    }

    int tagsAndBranches() {
        return tags.size() + branches.size();
    }

    /** Tags a random existing base version, or branches from it; says which. */
    String tagOrBranch(Random random) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            List<Version> versions = base.listVersions();
            long version = versions.get(random.nextInt(versions.size())).getId();
            String name = "t" + (tags.size() + branches.size() + 1);
            try (Dataset at = base.checkoutVersion(version)) {
                rowsWhenMade.put(name, CompactionFixture.byId(LanceRows.scan(at)));
            }
            if (random.nextInt(4) > 0) {
                base.tags().create(name, version);
                tags.put(name, version);
                return "tag " + name + " on base version " + version;
            }
            base.createBranch(name, Ref.ofMain(version)).close();
            branches.put(name, version);
            return "branch " + name + " from base version " + version;
        }
    }

    /**
     * The sink's base-table housekeeping run at the moment when {@code oldestNeeded} was written
     * just less than the kept window ago: every version before the one before it goes, tagged ones
     * aside. Returns how many versions it removed.
     */
    long cleanUp(long oldestNeeded, boolean compactFiles) {
        long writtenMillis;
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            writtenMillis = base.listVersions().stream()
                    .filter(v -> v.getId() == oldestNeeded)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("base version " + oldestNeeded
                            + ", which a retained checkpoint or a live writer records, is gone"))
                    .getDataTime()
                    .toInstant()
                    .toEpochMilli();
        }
        long now = writtenMillis + RetainedBaseVersions.kept(RETENTION).toMillis() - 1;
        CompactorOptions options = CompactorOptions.defaults().withCleanupRetention(RETENTION);
        if (compactFiles) {
            options = options.withFileCompaction(CompactionOptions.builder()
                    .withTargetRowsPerFragment(1_000_000)
                    .withDeferIndexRemap(true)
                    .build());
        }
        CompactionResult result = new TableCompaction(
                        new TableLocation(f.store, f.uri, Map.of()),
                        f.allocator,
                        options,
                        job,
                        TableCompaction.Seams.NONE.withLeaseClock(() -> now))
                .run();
        return result.cleanedUpVersions().orElseThrow(() -> new AssertionError("the cleanup did not run"));
    }

    /**
     * Garbage collection a day after everything was written, keeping per shard the manifest
     * versions from the oldest one needed ({@code oldestPinned}, by shard) on. Returns the objects
     * it removed.
     */
    long collect(Map<UUID, Long> oldestPinned) {
        long keep = 1;
        for (Map.Entry<UUID, Long> e : oldestPinned.entrySet()) {
            long latest = new ManifestStore(f.store, e.getKey())
                    .readLatest()
                    .orElseThrow()
                    .version();
            keep = Math.max(keep, latest - e.getValue() + 1);
        }
        Clock dayLater = Clock.fixed(Instant.now().plus(Duration.ofDays(1)), ZoneOffset.UTC);
        return new GarbageCollector(
                        f.store,
                        GarbageCollector.Options.retaining(RETENTION).keepingNewest(Math.toIntExact(keep)),
                        dayLater,
                        job)
                .collect()
                .objects();
    }

    /** Every tag still names its version and every branch still reads, as when they were made. */
    void checkTagsAndBranches(long seed) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            tags.forEach((name, version) -> {
                assertThat(base.tags().getVersion(name))
                        .as("tag %s (seed %s)", name, seed)
                        .isEqualTo(version);
                try (Dataset at = base.checkoutTag(name)) {
                    assertThat(CompactionFixture.byId(LanceRows.scan(at)))
                            .as("the version tag %s names (seed %s)", name, seed)
                            .isEqualTo(rowsWhenMade.get(name));
                }
            });
            branches.forEach((name, version) -> {
                try (Dataset at = base.checkout(Ref.ofBranch(name))) {
                    assertThat(CompactionFixture.byId(LanceRows.scan(at)))
                            .as("branch %s (seed %s)", name, seed)
                            .isEqualTo(rowsWhenMade.get(name));
                }
            });
        }
    }
}
