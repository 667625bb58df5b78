package io.walsink.recovery;

import io.walsink.annotation.Internal;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Who takes a table's maintenance lease (compaction and garbage collection): a name for messages
 * and, for the sink's own maintenance, the Flink job it runs for and the jobs whose checkpoints
 * that job continues (its lineage, {@code _walsink/jobs/}).
 *
 * <p>The job is what survives a restart: every attempt of a job keeps its job id, and a job
 * restored from a checkpoint of a killed one has that one in its lineage. A claimant therefore
 * takes over at once a lease entry written for its own job or one of its lineage (its own earlier
 * attempt, dead or fenced), while any other holder is refused until its entry expires. The
 * takeover is still a put-if-absent of the next entry, so of two live attempts only one holds it,
 * and the other stops at its next renewal.
 */
@Internal
public final class LeaseClaimant {
    private final String name;
    private final String job;
    private final Set<String> lineage;
    private final BooleanSupplier fenced;

    private LeaseClaimant(String name, String job, Set<String> lineage, BooleanSupplier fenced) {
        this.name = Objects.requireNonNull(name, "name");
        this.job = job;
        this.lineage = Set.copyOf(lineage);
        this.fenced = Objects.requireNonNull(fenced, "fenced");
    }

    private LeaseClaimant(String name, String job, Set<String> lineage) {
        this(name, job, lineage, () -> false);
    }

    /**
     * This claimant, fenced once {@code fenced} turns true (the sink's task closing): its lease is
     * then renewed no more and its runs stop before their next commit or removal, though they may
     * still release the lease.
     */
    public LeaseClaimant fencedWhen(BooleanSupplier fenced) {
        return new LeaseClaimant(name, job, lineage, fenced);
    }

    /** The same claimant, its name saying what it takes the lease for. */
    LeaseClaimant doing(String what) {
        return new LeaseClaimant(name + ", " + what, job, lineage, fenced);
    }

    /** Whether the claimant may no longer act on the table. */
    boolean fenced() {
        return fenced.getAsBoolean();
    }

    /** A standalone compactor or collector (CLI, scheduler): never takes over anyone's entry. */
    public static LeaseClaimant standalone(String what) {
        return new LeaseClaimant(what + " " + process(), null, Set.of());
    }

    /**
     * The maintenance of Flink job {@code job}, restored from checkpoints of {@code lineage} (the
     * job itself may be among them).
     */
    public static LeaseClaimant job(String job, Collection<String> lineage) {
        Objects.requireNonNull(job, "job");
        return new LeaseClaimant("walsink job " + job + " (" + process() + ")", job, Set.copyOf(lineage));
    }

    /** A claimant with a fixed name: a standalone holder (the shard-id migration), and tests. */
    public static LeaseClaimant named(String name, String job, Collection<String> lineage) {
        return new LeaseClaimant(name, job, Set.copyOf(lineage));
    }

    String name() {
        return name;
    }

    /** The job written into the lease entries this claimant takes; empty for a standalone one. */
    Optional<String> job() {
        return Optional.ofNullable(job);
    }

    /** Whether an entry written for {@code entryJob} is this claimant's own earlier attempt's. */
    boolean continues(String entryJob) {
        return job != null && entryJob != null && (job.equals(entryJob) || lineage.contains(entryJob));
    }

    /** Process, host and a run id: what tells two runs apart in messages. */
    private static String process() {
        return ManagementFactory.getRuntimeMXBean().getName() + "/"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public String toString() {
        return name;
    }
}
