package io.walsink.maintenance.gc;

import io.walsink.annotation.Internal;
import io.walsink.format.MemWalListing;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.GcFloorRecords;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes from a MemWAL table what neither a live manifest nor a checkpoint within the retention
 * can need, each object only once it is older than the retention (by its last-modified time):
 *
 * <ul>
 *   <li>manifest versions: a version is kept while it is among the newest {@code
 *       keepManifestVersions} or was superseded (its successor written) less than the retention
 *       ago, since a checkpoint pins the version that was current when it was taken. Removal is
 *       a prefix in ascending order, never the latest, and the shard's {@link GcFloor} is raised
 *       first;
 *   <li>WAL entries at or below the lowest {@code replay_after} of the kept versions (a retained
 *       checkpoint replays only above its pinned version's), never the newest entry (writers
 *       find the tip from it when the manifest's hint is gone);
 *   <li>SSTable folders no kept version lists, of a generation below every kept version's
 *       {@code current_generation} (so neither an SSTable being written nor one a retained
 *       checkpoint holds as written-but-unpublished), all files old;
 *   <li>{@code .tmp-*.partial} files of interrupted puts, and {@code _walsink/jobs/} job-start
 *       records.
 * </ul>
 *
 * <p>Beyond the retention it keeps what a live consumer record (a continuous read with a consumer
 * id, see {@link ConsumerNeeds}) still needs: the manifest versions from the one it read last and
 * the SSTable folders of generations it has not emitted. Records older than the consumer
 * expiration protect nothing and are removed.
 *
 * <p>One collector per table at a time, enforced: a run (other than a dry run) takes the table's
 * maintenance lease, the compaction lease, so that a table is never compacted or collected in two
 * places at once; a second collector or a compactor is refused with {@link
 * CompactionLeaseException} naming the holder. The run renews the lease before it removes anything
 * from a shard, so a collector whose lease was taken over stops there. Writers and readers may run
 * meanwhile. A restore of a checkpoint older than the retention then fails naming the retention
 * (see {@link GcFloor}).
 * No Flink types: it runs from a command line, a scheduler or a test.
 */
@Internal
public final class GarbageCollector {
    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

    /** Manifest versions always kept per shard, however old. */
    public static final int DEFAULT_KEEP_MANIFEST_VERSIONS = 10;

    /** How long a consumer record protects what its read needs after it was last written. */
    public static final Duration DEFAULT_CONSUMER_EXPIRATION = Duration.ofDays(1);

    /**
     * @param retention nothing younger is removed; at least the age of the oldest checkpoint or
     *     savepoint that may be restored
     * @param keepManifestVersions the newest versions of each shard kept whatever their age (at
     *     least 1: the latest is never removed)
     * @param dryRun report what would be removed, remove nothing
     * @param consumerExpiration consumer records written longer ago than this are ignored and removed
     */
    public record Options(Duration retention, int keepManifestVersions, boolean dryRun, Duration consumerExpiration) {
        public Options {
            Objects.requireNonNull(retention, "retention");
            if (retention.isNegative()) {
                throw new IllegalArgumentException("retention must not be negative, got " + retention);
            }
            Objects.requireNonNull(consumerExpiration, "consumerExpiration");
            if (consumerExpiration.isNegative() || consumerExpiration.isZero()) {
                throw new IllegalArgumentException("consumer expiration must be positive, got " + consumerExpiration);
            }
            if (keepManifestVersions < 1) {
                throw new IllegalArgumentException(
                        "keepManifestVersions must be at least 1 (the latest version), got " + keepManifestVersions);
            }
        }

        public static Options retaining(Duration retention) {
            return new Options(retention, DEFAULT_KEEP_MANIFEST_VERSIONS, false, DEFAULT_CONSUMER_EXPIRATION);
        }

        public Options keepingNewest(int versions) {
            return new Options(retention, versions, dryRun, consumerExpiration);
        }

        public Options dryRun(boolean dry) {
            return new Options(retention, keepManifestVersions, dry, consumerExpiration);
        }

        public Options consumerExpiration(Duration expiration) {
            return new Options(retention, keepManifestVersions, dryRun, expiration);
        }
    }

    private final ObjectStore store;
    private final Options options;
    private final Clock clock;
    private final LeaseClaimant claimant;

    public GarbageCollector(ObjectStore store, Options options) {
        this(store, options, Clock.systemUTC());
    }

    /** @param clock the time the retention and the lease are measured from (tests pass a simulated one) */
    public GarbageCollector(ObjectStore store, Options options, Clock clock) {
        this(store, options, clock, LeaseClaimant.standalone("collector"));
    }

    /** @param claimant who takes the maintenance lease (the sink passes its job) */
    public GarbageCollector(ObjectStore store, Options options, Clock clock, LeaseClaimant claimant) {
        this.store = Objects.requireNonNull(store, "store");
        this.options = Objects.requireNonNull(options, "options");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.claimant = Objects.requireNonNull(claimant, "claimant");
    }

    /**
     * One pass over every shard and the job records; returns what was (or would be) removed.
     *
     * @throws CompactionLeaseException if another compactor or collector holds the table's lease,
     *     or took it over during the run (nothing more is removed then)
     */
    public GcSummary collect() {
        if (options.dryRun()) {
            return collect(null); // removes nothing: no lease needed
        }
        try (CompactionLease lease = CompactionLease.acquire(
                store, store.describe(), claimant, CompactionLease.DEFAULT_DURATION, clock::millis)) {
            return collect(lease);
        }
    }

    /** @param lease the run's maintenance lease; null for a dry run */
    private GcSummary collect(CompactionLease lease) {
        Instant now = clock.instant();
        Instant cutoff = now.minus(options.retention());
        GcSummary total = new GcSummary(options.dryRun(), 0, 0, 0, 0, 0, 0, 0, 0);
        ConsumerNeeds consumers = ConsumerNeeds.read(store, now, options.consumerExpiration());
        MemWalListing listing = MemWalListing.of(store);
        for (UUID shard : listing.shards()) {
            ShardGcPlan plan = ShardGcPlan.of(
                    store,
                    options.keepManifestVersions(),
                    options.retention(),
                    shard,
                    listing.objects(shard),
                    now,
                    cutoff,
                    consumers);
            total = total.plus(execute(plan, lease));
        }
        total = total.plus(collectJobRecords(cutoff, lease));
        if (!consumers.expired().isEmpty()) {
            renew(lease);
            int removed = consumers.removeExpired(store, options.dryRun());
            total = total.plus(new GcSummary(options.dryRun(), 0, 0, 0, 0, 0, 0, removed, 0));
        }
        LOG.info(
                "Garbage collection of {} (retention {}, keeping the newest {} manifest versions{}): {} shards, "
                        + "{} WAL entries, {} manifest versions, {} SSTable folders, {} temporary files, "
                        + "{} job records; {} objects / {} bytes {}",
                store.describe(),
                options.retention(),
                options.keepManifestVersions(),
                options.dryRun() ? ", dry run" : "",
                total.shards(),
                total.walEntries(),
                total.manifestVersions(),
                total.ssTableFolders(),
                total.temporaryFiles(),
                total.jobRecords(),
                total.objects(),
                total.bytes(),
                options.dryRun() ? "would be removed" : "removed");
        return total;
    }

    /**
     * Removes in the order that keeps every reader right at every moment: the floor first (a
     * missing object below it is expected), the hint above the floor, then manifest versions in
     * ascending order (see {@link ManifestStore#readLatest}), WAL entries in ascending order, and
     * SSTable folders with their Lance manifests first (a half-removed folder is no dataset).
     */
    private GcSummary execute(ShardGcPlan plan, CompactionLease lease) {
        long bytes = 0;
        long objects = 0;
        List<ObjectMeta> folderFiles = new ArrayList<>();
        for (List<ObjectMeta> files : plan.folders().values()) {
            folderFiles.addAll(files);
        }
        for (List<ObjectMeta> group : List.of(plan.versions(), plan.wal(), folderFiles)) {
            for (ObjectMeta m : group) {
                bytes += m.size();
                objects++;
            }
        }
        if (!options.dryRun() && (objects > 0 || plan.raisedFloor() != null)) {
            renew(lease);
            if (plan.raisedFloor() != null) {
                // Compared-and-swapped with the floor the plan was made from: a collector racing
                // ours fails here, before it removes anything from the shard.
                GcFloorRecords.raise(store, plan.shard(), plan.seenFloor(), plan.raisedFloor());
                plan.manifests().raiseHintTo(plan.raisedFloor().manifestFloor(), plan.latest());
            }
            deleteAll(plan.versions(), lease);
            deleteAll(plan.wal(), lease);
            for (Map.Entry<String, List<ObjectMeta>> folder : plan.folders().entrySet()) {
                List<ObjectMeta> files = new ArrayList<>(folder.getValue());
                files.sort(Comparator.comparing((ObjectMeta m) -> !m.key().contains("/_versions/"))
                        .thenComparing(ObjectMeta::key));
                deleteAll(files, lease);
                store.removeEmptyFolders(TableLayout.ssTableFolder(plan.shard(), folder.getKey()));
            }
        }
        GcSummary summary = new GcSummary(
                options.dryRun(),
                1,
                plan.wal().size(),
                plan.versions().size(),
                plan.folders().size(),
                0,
                0,
                objects,
                bytes);
        if (objects > 0 || plan.raisedFloor() != null) {
            LOG.info(
                    "{} shard {}: {} WAL entries, {} manifest versions, {} SSTable folders {}; {} objects / {} bytes{}",
                    options.dryRun() ? "Would collect from" : "Collected from",
                    plan.shard(),
                    plan.wal().size(),
                    plan.versions().size(),
                    plan.folders().size(),
                    plan.folders().keySet(),
                    objects,
                    bytes,
                    plan.raisedFloor() == null
                            ? ""
                            : "; kept from manifest version "
                                    + plan.raisedFloor().manifestFloor() + " and WAL position "
                                    + (plan.raisedFloor().walFloor() + 1));
        }
        return summary;
    }

    /** Job-start records older than the retention, and temporary files of interrupted puts anywhere we write. */
    private GcSummary collectJobRecords(Instant cutoff, CompactionLease lease) {
        List<ObjectMeta> records = new ArrayList<>();
        Set<String> jobs = new TreeSet<>();
        for (ObjectMeta m : store.listAll(TableLayout.JOB_START_FOLDER)) {
            Optional<String> job = TableLayout.jobOfStartRecord(m.key());
            if (job.isPresent() && ShardGcPlan.old(m, cutoff)) {
                records.add(m);
                jobs.add(job.get());
            }
        }
        List<ObjectMeta> leftovers = new ArrayList<>();
        for (String prefix : List.of(TableLayout.MEM_WAL, TableLayout.WALSINK)) {
            store.listLeftovers(prefix).stream()
                    .filter(m -> ShardGcPlan.old(m, cutoff))
                    .forEach(leftovers::add);
        }
        long bytes = 0;
        for (ObjectMeta m : records) {
            bytes += m.size();
        }
        for (ObjectMeta m : leftovers) {
            bytes += m.size();
        }
        if (!options.dryRun() && !(records.isEmpty() && leftovers.isEmpty())) {
            renew(lease);
            deleteAll(records, lease);
            deleteAll(leftovers, lease);
            for (String job : jobs) {
                store.removeEmptyFolders(TableLayout.jobStartFolder(job));
            }
        }
        if (!records.isEmpty() || !leftovers.isEmpty()) {
            LOG.info(
                    "{} {} job-start records of jobs {} and {} temporary files of interrupted puts",
                    options.dryRun() ? "Would collect" : "Collected",
                    records.size(),
                    jobs,
                    leftovers.size());
        }
        return new GcSummary(
                options.dryRun(),
                0,
                0,
                0,
                0,
                leftovers.size(),
                records.size(),
                records.size() + leftovers.size(),
                bytes);
    }

    /** Before anything is removed: a collector whose lease was taken over stops here. */
    private static void renew(CompactionLease lease) {
        if (lease != null) {
            lease.renew();
        }
    }

    /** Removes {@code objects} in order, stopping before the next one once the lease holder is fenced. */
    private void deleteAll(List<ObjectMeta> objects, CompactionLease lease) {
        for (ObjectMeta m : objects) {
            if (lease != null) {
                lease.ensureNotFenced();
            }
            store.delete(m.key());
        }
    }

    /**
     * The oldest base table version a consumer record written within {@code expiration} before
     * {@code now} has its snapshot pinned at: the base table cleanup keeps it as collection keeps
     * the records' manifest versions.
     */
    public static OptionalLong consumerPinnedBaseVersion(ObjectStore store, Instant now, Duration expiration) {
        return ConsumerNeeds.read(store, now, expiration).baseVersion();
    }
}
