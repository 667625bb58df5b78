package io.walsink.flink;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.MergedGenerations;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceRows;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;

/**
 * The soak: a {@link WalSinkSoakJob} (compaction and garbage collection on) runs in a
 * chain of child JVMs while every kind of failure the project handles is injected, and three
 * readers in this JVM (walsink's COMMITTED reader, the base table alone, LanceDB's default read)
 * check every read ({@link ReadPoller}: no key goes back, vanishes without a later delete, shows a
 * value the input never wrote or one no completed checkpoint covered; no read fails). At the end the
 * last job stops with a savepoint and the table, through every reader, must equal the model of the
 * changes that savepoint covers.
 *
 * <p>Each child injects, inside its JVM, task failures at seeded changes and failed or
 * acknowledgement-lost store writes, each followed by a restart of the job by Flink from its latest
 * checkpoint; after a seeded number of those it ends in one of three ways, each a failover of its
 * own: SIGKILL (the next child restores the newest checkpoint it retained), a zombie (the child,
 * started without restarts, is paused with SIGSTOP; the next child restores its newest checkpoint
 * and claims every shard; then the paused one is resumed and must fail fenced), or a rescale
 * (stop-with-savepoint, the next child restores the savepoint at another parallelism). Every choice
 * comes from {@code --seed}; every failover is counted from evidence (exit codes, the children's
 * logged attempts and the causes Flink logged for them, restored checkpoint ids, fenced writers,
 * shard epochs), never from a sleep.
 *
 * <p>Run with {@code mvn -B -o -Psoak -pl flink-walsink test-compile exec:exec
 * -Dsoak.args="--failovers 300 --minutes 20"} (see docs/guarantees.md). Exit code 0 only for a
 * clean run: no violation, no failed read, no unexplained restart, every kind fired with its
 * evidence, the final table equal to the model.
 */
public final class WalSinkSoak {
    /** The ways a child's JVM ends, each a failover (the last child ends with {@link #STOP}). */
    enum Ending {
        KILL,
        ZOMBIE,
        RESCALE,
        STOP
    }

    /** Failover kinds, as printed. */
    enum Kind {
        TASK_FAILURE("task failure (exception at a seeded change, Flink restarts)"),
        STORE_FAULT("store write failure or lost acknowledgement (Flink restarts)"),
        SIGKILL("SIGKILL of the job's JVM, restore of its newest retained checkpoint"),
        ZOMBIE("zombie writer (paused JVM resumed after its successor claimed the shards)"),
        RESCALE("rescale (stop-with-savepoint, restore at another parallelism)");

        final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    private static final long CHILD_TIMEOUT_SECONDS = 240;

    /** The soak's flags. */
    record Options(
            int failovers,
            long seed,
            double minutes,
            Path path,
            double rate,
            int keys,
            int minRestartsPerJvm,
            int maxRestartsPerJvm,
            double storeFaultProbability,
            double taskFailureSeconds,
            List<Ending> schedule) {

        static final String USAGE = "flags (all optional): --failovers N (100) --seed S (random, printed)"
                + " --minutes M (30; the run stops failing over then, even short of N) --path DIR (a new temp dir;"
                + " must not hold a table) --rate CHANGES_PER_S (1000) --keys K (200)"
                + " --min-restarts-per-jvm A (4) --max-restarts-per-jvm B (16) --store-fault-probability P (0.004,"
                + " per put-if-absent) --task-failure-seconds T (2: a task failure per T s of input, on average)"
                + " --schedule kill,zombie,rescale (the first children's endings; then seeded)";

        static Options parse(String[] args) throws IOException {
            Map<String, String> f = WalSinkSoakJob.flags(args);
            List<String> known = List.of(
                    "failovers",
                    "seed",
                    "minutes",
                    "path",
                    "rate",
                    "keys",
                    "min-restarts-per-jvm",
                    "max-restarts-per-jvm",
                    "store-fault-probability",
                    "task-failure-seconds",
                    "schedule");
            for (String flag : f.keySet()) {
                if (!known.contains(flag)) {
                    throw new IllegalArgumentException("unknown flag --" + flag + "; " + USAGE);
                }
            }
            long seed = f.containsKey("seed") ? Long.parseLong(f.get("seed")) : new SplittableRandom().nextLong();
            Path path = f.containsKey("path") ? Path.of(f.get("path")) : Files.createTempDirectory("walsink-soak");
            List<Ending> schedule = new ArrayList<>();
            if (f.containsKey("schedule")) {
                for (String e : f.get("schedule").split(",")) {
                    schedule.add(Ending.valueOf(e.trim().toUpperCase(java.util.Locale.ROOT)));
                }
            }
            return new Options(
                    Integer.parseInt(f.getOrDefault("failovers", "100")),
                    seed,
                    Double.parseDouble(f.getOrDefault("minutes", "30")),
                    path,
                    Double.parseDouble(f.getOrDefault("rate", "1000")),
                    Integer.parseInt(f.getOrDefault("keys", "200")),
                    Integer.parseInt(f.getOrDefault("min-restarts-per-jvm", "4")),
                    Integer.parseInt(f.getOrDefault("max-restarts-per-jvm", "16")),
                    Double.parseDouble(f.getOrDefault("store-fault-probability", "0.004")),
                    Double.parseDouble(f.getOrDefault("task-failure-seconds", "2")),
                    schedule);
        }
    }

    /** One child JVM and what the soak knows of it. */
    private static final class Child {
        final int index;
        final ChildJvm jvm;
        final int parallelism;
        final Ending ending;
        final Path checkpoints;
        final Path control;
        final int coversJob;
        /** The checkpoint id its first attempt must have restored; "none", or null for "some" (a savepoint). */
        final String expectedRestore;

        SoakLog log;

        Child(
                int index,
                ChildJvm jvm,
                int parallelism,
                Ending ending,
                Path checkpoints,
                Path control,
                int coversJob,
                String expectedRestore) {
            this.index = index;
            this.jvm = jvm;
            this.parallelism = parallelism;
            this.ending = ending;
            this.checkpoints = checkpoints;
            this.control = control;
            this.coversJob = coversJob;
            this.expectedRestore = expectedRestore;
        }

        SoakLog readLog() throws IOException {
            return new SoakLog(Files.readAllLines(jvm.log()));
        }
    }

    private final Options options;
    private final PrintStream out;
    private final Path table;
    private final ChangeGenerator changes;
    private final long n;
    private final SplittableRandom random;
    private final CheckpointCovers covers;
    private final List<Child> children = new ArrayList<>();
    private final List<ReadPoller> pollers = new ArrayList<>();

    private final Map<Kind, Integer> failovers = new EnumMap<>(Kind.class);
    private final Map<Kind, List<String>> evidence = new EnumMap<>(Kind.class);
    /** Everything that makes the run unclean, described. */
    private final List<String> problems = new ArrayList<>();

    private int lostAcks;
    private int writeFailures;
    private int taskFailuresInjected;
    private long startNanos;

    WalSinkSoak(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.table = options.path().resolve("table");
        this.random = new SplittableRandom(options.seed());
        this.changes = new ChangeGenerator(options.keys(), 6, options.seed() == 0 ? 1 : options.seed());
        // more changes than the run can send: the last job is stopped with a savepoint well before
        this.n = (long) (options.rate() * options.minutes() * 60) + 100_000;
        this.covers = new CheckpointCovers(List.of(), List.of(), n);
        for (Kind k : Kind.values()) {
            failovers.put(k, 0);
            evidence.put(k, new ArrayList<>());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length % 2 != 0 || List.of(args).contains("--help")) {
            System.out.println("walsink soak; " + Options.USAGE);
            System.exit(args.length == 1 ? 0 : 2);
        }
        Options options = Options.parse(args);
        boolean clean = new WalSinkSoak(options, System.out).run();
        System.exit(clean ? 0 : 1);
    }

    /** Runs the soak, prints its progress and the summary; returns whether it was clean. */
    boolean run() throws Exception {
        startNanos = System.nanoTime();
        Files.createDirectories(options.path());
        out.printf(
                "walsink soak: seed %d (replay with --seed %d), %d failovers wanted within %.1f min, %s%n",
                options.seed(), options.seed(), options.failovers(), options.minutes(), options.path());
        LanceDb.install();
        try (LanceDb.Session lanceDb = LanceDb.session(table)) {
            pollers.add(ReadPoller.committed(table, changes, n, 200));
            pollers.add(ReadPoller.baseOnly(table, changes, n, 500));
            pollers.add(ReadPoller.lanceDb(lanceDb, table, changes, n, 1000));
            pollers.forEach(p -> p.coveredBy(covers::covered).start());
            long cover;
            try {
                cover = failOver();
            } finally {
                for (Child c : children) {
                    if (c.jvm.process().isAlive()) {
                        c.jvm.kill();
                    }
                }
                for (ReadPoller p : pollers) {
                    p.close();
                }
            }
            checkEnd(cover, lanceDb);
        }
        return summary();
    }

    private long secondsLeft() {
        return (long) (options.minutes() * 60) - TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
    }

    /** Children one after another, each ending in a failover, until enough; returns the last savepoint's cover. */
    private long failOver() throws Exception {
        List<Ending> schedule = new ArrayList<>(options.schedule());
        Child child = start(1 + random.nextInt(3), null, "none", next(schedule));
        // every scheduled ending runs, the last one's child included
        for (int scheduled = options.schedule().size();
                scheduled > 0 || (total(child) < options.failovers() && secondsLeft() > 0);
                scheduled--) {
            Child successor =
                    switch (child.ending) {
                        case KILL -> kill(child, next(schedule));
                        case ZOMBIE -> zombie(child, next(schedule));
                        case RESCALE -> rescale(child, next(schedule));
                        case STOP -> throw new IllegalStateException("STOP is only the last ending");
                    };
            child = successor;
            progress(child);
        }
        awaitRestarts(child);
        return stop(child);
    }

    private Ending next(List<Ending> schedule) {
        if (!schedule.isEmpty()) {
            return schedule.remove(0);
        }
        int r = random.nextInt(10);
        return r < 4 ? Ending.KILL : r < 7 ? Ending.RESCALE : Ending.ZOMBIE;
    }

    private Child start(int parallelism, String restore, String expectedRestore, Ending ending) throws IOException {
        int index = children.size();
        Path checkpoints = options.path().resolve("checkpoints-" + index);
        Path coverDir = options.path().resolve("covers-" + index);
        Path control = Files.createDirectories(options.path().resolve("control-" + index));
        int coversJob = covers.addJob(checkpoints, coverDir, control.resolve("savepoints"));
        boolean faults = ending != Ending.ZOMBIE; // a zombie must not restart by itself once fenced
        int restartsWanted = options.maxRestartsPerJvm();
        List<String> args = new ArrayList<>(List.of(
                "--table", table.toString(),
                "--checkpoints", checkpoints.toString(),
                "--covers", coverDir.toString(),
                "--control", control.toString(),
                "--keys", Integer.toString(changes.keys()),
                "--delete-every", Integer.toString(changes.deleteEvery()),
                "--changes-seed", Long.toString(changes.seed()),
                "--n", Long.toString(n),
                "--rate", Double.toString(options.rate()),
                "--parallelism", Integer.toString(parallelism),
                "--restarts", Boolean.toString(faults),
                "--fail-gap", faults ? Long.toString((long) (options.rate() * options.taskFailureSeconds())) : "0",
                "--fault-seed", Long.toString(random.nextLong()),
                "--store-fault-probability", Double.toString(options.storeFaultProbability()),
                "--store-faults", faults ? Integer.toString(restartsWanted) : "0"));
        if (restore != null) {
            args.addAll(List.of("--restore", restore));
        }
        ChildJvm jvm = ChildJvm.start(options.path(), "child-" + index, WalSinkSoakJob.class, args);
        Child child = new Child(index, jvm, parallelism, ending, checkpoints, control, coversJob, expectedRestore);
        children.add(child);
        return child;
    }

    /**
     * Waits until the child restarted a seeded number of times inside its JVM (or its time is up)
     * and then completed a checkpoint after its last restart; a zombie-to-be (no injected faults)
     * only completes two checkpoints.
     */
    private void awaitRestarts(Child child) throws Exception {
        long first = child.jvm.awaitCheckpointAbove(child.checkpoints, 0, CHILD_TIMEOUT_SECONDS);
        if (child.ending == Ending.ZOMBIE) {
            child.jvm.awaitCheckpointAbove(child.checkpoints, first, CHILD_TIMEOUT_SECONDS);
            return;
        }
        int wanted = options.minRestartsPerJvm()
                + random.nextInt(options.maxRestartsPerJvm() - options.minRestartsPerJvm() + 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
        while (child.readLog().restartCount() < wanted && System.nanoTime() < deadline) {
            if (!child.jvm.process().isAlive()) {
                throw new AssertionError(child.jvm.name() + " ended early; " + child.jvm.logTail());
            }
            child.jvm.process().waitFor(250, TimeUnit.MILLISECONDS); // pacing the look at its log
        }
        // restarts a second or two apart on a loaded machine can keep every checkpoint from completing:
        // no more injections in this JVM, then one checkpoint after the last restart
        Files.writeString(child.control.resolve("quiet"), "");
        long newest = CheckpointCovers.newestCheckpoint(child.checkpoints)
                .map(CheckpointCovers::checkpointId)
                .orElse(0L);
        child.jvm.awaitCheckpointAbove(child.checkpoints, newest, CHILD_TIMEOUT_SECONDS);
    }

    private Child kill(Child child, Ending nextEnding) throws Exception {
        awaitRestarts(child);
        int exit = child.jvm.kill();
        Path newest = CheckpointCovers.newestCheckpoint(child.checkpoints).orElseThrow();
        if (exit != 137) {
            problems.add(child.jvm.name() + ": exit code " + exit + " after SIGKILL, not 137");
        }
        finish(child);
        String id = Long.toString(CheckpointCovers.checkpointId(newest));
        Child successor = start(child.parallelism, newest.toString(), id, nextEnding);
        count(Kind.SIGKILL, child.jvm.name() + " exit " + exit + ", " + successor.jvm.name() + " restores chk-" + id);
        return successor;
    }

    private Child zombie(Child victim, Ending nextEnding) throws Exception {
        awaitRestarts(victim);
        victim.jvm.pause();
        Map<UUID, Long> epochs = epochs();
        Path newest = CheckpointCovers.newestCheckpoint(victim.checkpoints).orElseThrow();
        String id = Long.toString(CheckpointCovers.checkpointId(newest));
        Child successor = start(victim.parallelism, newest.toString(), id, nextEnding);
        // the successor has claimed every shard the victim held (a higher epoch in its manifest) ...
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
        while (!claimedAll(epochs)) {
            if (!successor.jvm.process().isAlive() || System.nanoTime() > deadline) {
                victim.jvm.resume();
                throw new AssertionError(successor.jvm.name() + " did not claim every shard of " + victim.jvm.name()
                        + " " + epochs + "; " + successor.jvm.logTail());
            }
            successor.jvm.process().waitFor(100, TimeUnit.MILLISECONDS);
        }
        // ... and completed a checkpoint: only then the paused one wakes up, and must fail fenced
        successor.jvm.awaitCheckpointAbove(successor.checkpoints, 0, CHILD_TIMEOUT_SECONDS);
        victim.jvm.resume();
        if (!victim.jvm.process().waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            problems.add(victim.jvm.name() + ": the zombie did not end within " + CHILD_TIMEOUT_SECONDS
                    + " s after its successor claimed its shards");
            victim.jvm.kill();
        }
        finish(victim);
        int exit = victim.jvm.process().exitValue();
        if (exit == 0 || victim.log.fencedFailures == 0) {
            problems.add(victim.jvm.name() + ": the zombie ended with exit code " + exit + " and "
                    + victim.log.fencedFailures + " fenced task failures; " + victim.jvm.logTail());
        } else {
            count(
                    Kind.ZOMBIE,
                    victim.jvm.name() + " paused, " + successor.jvm.name() + " restored chk-" + id
                            + " and raised the epochs of " + epochs.size() + " shards, the zombie failed with "
                            + victim.log.fencedFailures + " fenced tasks, exit " + exit);
        }
        return successor;
    }

    private Child rescale(Child child, Ending nextEnding) throws Exception {
        awaitRestarts(child);
        String savepoint = stopWithSavepoint(child);
        int parallelism = 1 + (child.parallelism + random.nextInt(2)) % 3; // another of 1, 2, 3
        Child successor = start(parallelism, savepoint, null, nextEnding);
        count(
                Kind.RESCALE,
                child.jvm.name() + " stopped with a savepoint at parallelism " + child.parallelism + ", "
                        + successor.jvm.name() + " restores it at " + parallelism);
        return successor;
    }

    private long stop(Child child) throws Exception {
        stopWithSavepoint(child);
        return covers.lastRecordedCover(child.coversJob);
    }

    /** Asks the child to stop with a savepoint; returns its path once the child ended. */
    private String stopWithSavepoint(Child child) throws Exception {
        Files.writeString(child.control.resolve("stop"), "");
        if (!child.jvm.process().waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError(child.jvm.name() + " did not stop with a savepoint within " + CHILD_TIMEOUT_SECONDS
                    + " s; " + child.jvm.logTail());
        }
        finish(child);
        if (child.jvm.process().exitValue() != 0 || child.log.savepoint == null) {
            throw new AssertionError(child.jvm.name() + " did not stop with a savepoint (exit code "
                    + child.jvm.process().exitValue() + "); " + child.jvm.logTail());
        }
        return child.log.savepoint;
    }

    /** Reads an ended child's log: its restarts by cause, injected faults, the checkpoint it restored. */
    private void finish(Child child) throws IOException {
        SoakLog log = child.readLog();
        child.log = log;
        failovers.merge(Kind.TASK_FAILURE, log.restarts.get(SoakLog.Restart.TASK_FAILURE), Integer::sum);
        failovers.merge(Kind.STORE_FAULT, log.restarts.get(SoakLog.Restart.STORE_FAULT), Integer::sum);
        taskFailuresInjected += log.taskFailuresInjected;
        lostAcks += log.lostAcks;
        writeFailures += log.writeFailures;
        for (String u : log.unexplained) {
            problems.add(child.jvm.name() + ": a restart nothing injected caused: " + u);
        }
        String restored = log.restored.isEmpty() ? null : log.restored.get(0);
        if (restored == null) {
            problems.add(child.jvm.name() + ": no attempt started; " + child.jvm.logTail());
        } else if (child.expectedRestore == null ? restored.equals("none") : !restored.equals(child.expectedRestore)) {
            problems.add(child.jvm.name() + ": restored " + restored + ", expected "
                    + (child.expectedRestore == null ? "a savepoint" : child.expectedRestore));
        }
        if (log.parallelism == null || Integer.parseInt(log.parallelism) != child.parallelism) {
            problems.add(child.jvm.name() + ": ran at parallelism " + log.parallelism + ", not " + child.parallelism);
        }
    }

    private void count(Kind kind, String what) {
        failovers.merge(kind, 1, Integer::sum);
        evidence.get(kind).add(what);
    }

    /** Failovers so far, the current child's restarts counted from its log. */
    private int total(Child current) throws IOException {
        int total = failovers.values().stream().mapToInt(Integer::intValue).sum();
        return total + (current.log == null ? current.readLog().restartCount() : 0);
    }

    private void progress(Child current) throws IOException {
        out.printf(
                "[%4d s] failovers %d %s (+%d restarts in %s so far); reads %s; violations %d%n",
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos),
                total(current),
                failovers,
                current.readLog().restartCount(),
                current.jvm.name(),
                pollers.stream().map(p -> p.name() + " " + p.polls()).toList(),
                pollers.stream().mapToLong(p -> p.violations().size()).sum());
    }

    /** Per shard of the table, the writer epoch of its latest manifest. */
    private Map<UUID, Long> epochs() {
        Map<UUID, Long> epochs = new HashMap<>();
        LocalObjectStore store = new LocalObjectStore(table);
        for (UUID shard : HarnessSupport.shards(table)) {
            new ManifestStore(store, shard).readLatest().ifPresent(m -> epochs.put(shard, m.writerEpoch()));
        }
        return epochs;
    }

    private boolean claimedAll(Map<UUID, Long> before) {
        LocalObjectStore store = new LocalObjectStore(table);
        for (Map.Entry<UUID, Long> shard : before.entrySet()) {
            Optional<ShardManifest> latest = new ManifestStore(store, shard.getKey()).readLatest();
            if (latest.isEmpty() || latest.get().writerEpoch() <= shard.getValue()) {
                return false;
            }
        }
        return true;
    }

    private final Map<String, Boolean> endChecks = new java.util.LinkedHashMap<>();
    private long endCover;
    private int mergedGenerations;

    /** The table after the last savepoint, through every reader, against the model of what it covers. */
    private void checkEnd(long cover, LanceDb.Session lanceDb) throws Exception {
        endCover = cover;
        Map<Long, String> model = changes.model(cover);
        endChecks.put(
                "COMMITTED", HarnessSupport.read(table, ReadMode.COMMITTED).equals(model));
        endChecks.put("LATEST", HarnessSupport.read(table, ReadMode.LATEST).equals(model));
        endChecks.put(
                "LanceDB default read", ReadPoller.lanceDbRows(lanceDb, null).equals(model));
        try (RootAllocator allocator = new RootAllocator()) {
            mergedGenerations = MergedGenerations.latest(allocator, table.toString(), Map.of())
                    .size();
            Compactor.compact(table.toString(), null, CompactorOptions.defaults()); // what the last job published
            Map<Long, String> base = new TreeMap<>();
            LanceRows.scan(allocator, table.toString(), Map.of())
                    .forEach(r -> base.put((Long) r.get("id"), String.valueOf(r.get("name"))));
            endChecks.put("base table alone after a last compaction (lance-core)", base.equals(model));
        }
        endChecks.put(
                "base table alone (LanceDB, useLsm false)",
                ReadPoller.lanceDbRows(lanceDb, false).equals(model));
        endChecks.forEach((what, equal) -> {
            if (!equal) {
                problems.add("at the end, " + what + " differs from the model of changes 0.." + (cover - 1));
            }
        });
    }

    private boolean summary() {
        for (Kind k : Kind.values()) {
            if (failovers.get(k) == 0) {
                problems.add("no failover of kind " + k + " happened");
            }
        }
        for (ReadPoller p : pollers) {
            if (p.failedReads() > 0) {
                problems.add(p.name() + ": " + p.failedReads() + " failed reads; " + p);
            }
            if (p.nonEmptyPolls() == 0) {
                problems.add(p.name() + ": no read with rows");
            }
            problems.addAll(p.violations());
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
        int total = failovers.values().stream().mapToInt(Integer::intValue).sum();
        out.println();
        out.printf(
                "walsink soak summary: seed %d, %d s, %d child JVMs, %s%n",
                options.seed(), seconds, children.size(), options.path());
        out.printf("%-80s %9s%n", "failover kind", "failovers");
        for (Kind k : Kind.values()) {
            out.printf("%-80s %9d%n", k.description, failovers.get(k));
        }
        out.printf("%-80s %9d  (%.1f s per failover)%n", "total", total, total == 0 ? 0.0 : (double) seconds / total);
        out.printf(
                "evidence: %d injected task failures logged; %d lost acknowledgements and %d failed writes injected"
                        + " (failed writes are mostly retried without a restart); every restart's logged cause"
                        + " classified (%d unexplained)%n",
                taskFailuresInjected,
                lostAcks,
                writeFailures,
                problems.stream().filter(p -> p.contains("nothing injected")).count());
        for (Kind k : List.of(Kind.SIGKILL, Kind.ZOMBIE, Kind.RESCALE)) {
            List<String> e = evidence.get(k);
            if (!e.isEmpty()) {
                out.printf("  %s, e.g. %s%n", k, e.get(e.size() - 1));
            }
        }
        out.printf(
                "%-12s %8s %14s %12s %12s %8s %9s %6s%n",
                "reader", "reads", "rows checked", "failed reads", "regressions", "phantoms", "vanished", "early");
        for (ReadPoller p : pollers) {
            out.printf(
                    "%-12s %8d %14d %12d %12d %8d %9d %6d%n",
                    p.name(),
                    p.polls(),
                    p.rowsChecked(),
                    p.failedReads(),
                    p.violations(ReadPoller.Violation.REGRESSION),
                    p.violations(ReadPoller.Violation.PHANTOM),
                    p.violations(ReadPoller.Violation.VANISHED),
                    p.violations(ReadPoller.Violation.EARLY));
        }
        out.printf(
                "end: changes 0..%d (the last savepoint's), %d generations merged by the jobs' compaction%n",
                endCover - 1, mergedGenerations);
        endChecks.forEach((what, equal) -> out.printf("  %-60s %s%n", what + " == model", equal ? "YES" : "NO"));
        if (problems.isEmpty()) {
            out.println("verdict: CLEAN");
        } else {
            out.println("verdict: " + problems.size() + " PROBLEMS");
            problems.stream().limit(50).forEach(p -> out.println("  " + p));
        }
        return problems.isEmpty();
    }

    Map<Kind, Integer> failovers() {
        return failovers;
    }

    List<String> problems() {
        return problems;
    }
}
