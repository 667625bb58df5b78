package io.walsink.flink;

import io.walsink.format.table.TableNotFoundException;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.arrow.memory.RootAllocator;

/**
 * A reader polling a table while a job writes the first {@code n} changes of a
 * {@link ChangeGenerator}, and what it may see. Each read is one whole-table snapshot of key to value
 * ({@code "v" + i}, where {@code i} is the number of the change that wrote it, its sequence); for
 * each read, and against the reads of the same reader before it:
 *
 * <ul>
 *   <li><b>never early</b>: a key's value is an upsert of that key in the input ({@code i < n}, the
 *       change writes that key and is no delete), and {@code i} is below the bound the poller was
 *       given, asked after the read ended: the number of leading changes the newest checkpoint
 *       completed by then covers ({@link CheckpointCovers}), or {@code n} without one;
 *   <li><b>never back</b>: a key's sequence never decreases from one read to a later one (a key seen
 *       absent after a delete counts as being at that delete);
 *   <li><b>never vanishing</b>: a key seen before is absent only if the input deletes it after the
 *       newest state the reader knew of;
 *   <li><b>no read fails</b>: every exception of a read is counted as a failure (the poller goes
 *       on). Only "no table yet" before the first successful read is expected and counted apart.
 * </ul>
 *
 * <p>The readers: {@link #committed} (walsink's {@code TableReader}, COMMITTED), {@link #baseOnly}
 * (a plain lance-core scan of the base table: compaction's merges only), {@link #lanceCore}
 * (lance-core's {@code LsmScanner} over the base table and the published SSTables) and {@link
 * #lanceDb} (LanceDB's Node client on its defaults: its MemWAL scanner over the base table and the
 * published SSTables; a Node process per read, or one for all reads of a {@link LanceDb.Session}).
 */
final class ReadPoller implements AutoCloseable {
    /** One read of the whole table, key to value; null when there is no table (yet). */
    interface Reader {
        Map<Long, String> read() throws Exception;
    }

    private final String name;
    private final ChangeGenerator changes;
    private final long n;
    private final long pollIntervalMillis;
    private final Reader reader;
    private volatile LongSupplier covered;
    private final Map<Long, NavigableSet<Long>> deletes;
    /** Per key, the change number the table is known to be at or after. */
    private final Map<Long, Long> known = new HashMap<>();
    /** Whether {@link #known} of a key is a delete (the key was seen absent after it). */
    private final Map<Long, Boolean> knownDeleted = new HashMap<>();

    /** What a read may break, each counted apart (the soak prints them per kind). */
    enum Violation {
        /** A value no upsert of that key in the input wrote. */
        PHANTOM,
        /** A value newer than a completed checkpoint covered by the end of the read. */
        EARLY,
        /** A key back to an older value than a read before saw. */
        REGRESSION,
        /** A key gone without a later delete in the input. */
        VANISHED
    }

    private final Map<Violation, AtomicLong> violationCounts = new java.util.EnumMap<>(Violation.class);
    private final AtomicLong rowsChecked = new AtomicLong();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicInteger failedReads = new AtomicInteger();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger nonEmptyPolls = new AtomicInteger();
    private final AtomicInteger changesSeen = new AtomicInteger();
    private Map<Long, String> previous = Map.of();
    private Map<Long, String> current = Map.of();
    private long currentBound;
    private final AtomicInteger notThereYet = new AtomicInteger();
    private final Queue<Predicate<Map<Long, String>>> afterReads = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile Throwable failure;
    /** What a violation's description adds about the read just checked (which version it read). */
    private Supplier<String> readNote = () -> "";
    /** When the read whose rows {@link #afterReads} actions are handed started (epoch ms). */
    private volatile long readStartedMillis;

    ReadPoller(String name, ChangeGenerator changes, long n, long pollIntervalMillis, Reader reader) {
        this.name = name;
        this.changes = changes;
        this.n = n;
        this.pollIntervalMillis = pollIntervalMillis;
        this.reader = reader;
        this.covered = () -> n;
        this.deletes = changes.deletes(n);
        for (Violation v : Violation.values()) {
            violationCounts.put(v, new AtomicLong());
        }
        this.thread = new Thread(this::loop, name + "-read-poller");
        this.thread.setDaemon(true);
    }

    /** walsink's {@code TableReader} in COMMITTED mode (base table + published SSTables). */
    static ReadPoller committed(Path table, ChangeGenerator changes, long n, long pollIntervalMillis) {
        return new ReadPoller("committed", changes, n, pollIntervalMillis, () -> {
            try {
                return HarnessSupport.read(table, ReadMode.COMMITTED);
            } catch (TableNotFoundException notYetThere) {
                return null;
            }
        });
    }

    /** The base table alone, read by a plain lance-core scan (no MemWAL): what compaction merged. */
    static ReadPoller baseOnly(Path table, ChangeGenerator changes, long n, long pollIntervalMillis) {
        return new ReadPoller("base-only", changes, n, pollIntervalMillis, () -> {
            if (!hasLanceVersion(table)) {
                return null;
            }
            Map<Long, String> rows = new TreeMap<>();
            try (RootAllocator allocator = new RootAllocator()) {
                LanceRows.scan(allocator, table.toString(), Map.of())
                        .forEach(r -> putOnce(rows, (Long) r.get("id"), (String) r.get("name")));
            }
            return rows;
        });
    }

    /**
     * LanceDB's Node client, {@code table.query()} on its defaults (one Node process per read). The
     * client is installed here, before the poller starts, so that no read waits for npm.
     */
    static ReadPoller lanceDb(Path table, ChangeGenerator changes, long n, long pollIntervalMillis)
            throws java.io.IOException, InterruptedException {
        LanceDb.install();
        return new ReadPoller("lancedb", changes, n, pollIntervalMillis, () -> {
            if (!hasLanceVersion(table)) {
                return null;
            }
            return lanceDbRows(table, null);
        });
    }

    /**
     * LanceDB's Node client, {@code table.query()} on its defaults, each read a new connection and
     * table handle in the one Node process of {@code session}, so that Node's start is in no read.
     */
    static ReadPoller lanceDb(
            LanceDb.Session session, Path table, ChangeGenerator changes, long n, long pollIntervalMillis) {
        ReadPoller poller = new ReadPoller("lancedb", changes, n, pollIntervalMillis, () -> {
            if (!hasLanceVersion(table)) {
                return null;
            }
            return lanceDbRows(session, null);
        });
        poller.readNote = () -> "LanceDB opened base version " + session.lastBaseVersion();
        return poller;
    }

    /**
     * lance-core's {@code LsmScanner} over the base table and the published SSTables ({@link
     * LanceOracle#scanPublished}). lance-core 7.0.0 reads a deleted key as a row with a null name
     * (it ignores {@code _tombstone}); such rows are left out, so that the key reads as absent.
     */
    static ReadPoller lanceCore(Path table, ChangeGenerator changes, long n, long pollIntervalMillis) {
        return new ReadPoller("lance-core", changes, n, pollIntervalMillis, () -> {
            if (!hasLanceVersion(table)) {
                return null;
            }
            Map<Long, String> rows = new TreeMap<>();
            try (RootAllocator allocator = new RootAllocator()) {
                LanceOracle.scanPublished(
                                allocator,
                                table.toString(),
                                Map.of(),
                                new LocalObjectStore(table),
                                HarnessSupport.shards(table),
                                List.of("id", "name"))
                        .stream()
                        .filter(r -> r.get("name") != null)
                        .forEach(r -> putOnce(rows, (Long) r.get("id"), (String) r.get("name")));
            }
            return rows;
        });
    }

    /** As {@link #lanceDbRows(Path, Boolean)}, read in {@code session}'s Node process. */
    static Map<Long, String> lanceDbRows(LanceDb.Session session, Boolean lsm) throws Exception {
        return lanceDbRows(session.read(List.of(new LanceDb.Query("all", null, List.of("id", "name"), lsm)))
                .get("all"));
    }

    /**
     * The table read once by LanceDB, key to value: its default read ({@code lsm} null) or the base
     * table alone ({@code false}); fails on LanceDB's error or a key read twice.
     */
    static Map<Long, String> lanceDbRows(Path table, Boolean lsm) throws Exception {
        LanceDb.Result result = LanceDb.read(table, List.of(new LanceDb.Query("all", null, List.of("id", "name"), lsm)))
                .get("all");
        return lanceDbRows(result);
    }

    private static Map<Long, String> lanceDbRows(LanceDb.Result result) {
        if (result.failed()) {
            throw new IllegalStateException("LanceDB: " + result.error());
        }
        Map<Long, String> rows = new TreeMap<>();
        result.rows().forEach(r -> putOnce(rows, Long.parseLong(r.get(0)), r.get(1)));
        return rows;
    }

    /** A key twice in one read is a failed read (a reader must return one row per key). */
    private static void putOnce(Map<Long, String> rows, Long key, String value) {
        String before = rows.put(key, value);
        if (before != null) {
            throw new IllegalStateException("key " + key + " read twice: " + before + " and " + value);
        }
    }

    /** Whether the Lance dataset has a committed version (the job creates the table). */
    private static boolean hasLanceVersion(Path table) throws java.io.IOException {
        Path versions = table.resolve("_versions");
        if (!Files.isDirectory(versions)) {
            return false;
        }
        try (var files = Files.list(versions)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".manifest"));
        }
    }

    /**
     * The bound on a value's change number, asked after each read has ended: the number of leading
     * changes a checkpoint that had completed by then covers.
     */
    ReadPoller coveredBy(LongSupplier covered) {
        this.covered = covered;
        return this;
    }

    ReadPoller start() {
        thread.start();
        return this;
    }

    String name() {
        return name;
    }

    /** Successful reads of the table (the table existed and was read whole). */
    int polls() {
        return polls.get();
    }

    /** Successful reads that returned at least one row. */
    int nonEmptyPolls() {
        return nonEmptyPolls.get();
    }

    /** Successful reads that returned rows, and other rows than the read before. */
    int changesSeen() {
        return changesSeen.get();
    }

    /** The first 50 violations, described. */
    List<String> violations() {
        return violations;
    }

    /** Violations of {@code kind} so far (all of them, not only the first 50). */
    long violations(Violation kind) {
        return violationCounts.get(kind).get();
    }

    /** Rows of successful reads, all checked against the input and the reads before. */
    long rowsChecked() {
        return rowsChecked.get();
    }

    /** Reads that failed. */
    int failedReads() {
        return failedReads.get();
    }

    /**
     * Asserts what this poller saw: at least {@code minReadsWithRows} successful reads returned rows
     * and at least {@code minChangesSeen} of them found the table changed since the read before, no
     * read failed and no read broke a rule (see the class comment).
     */
    /**
     * Whether the checks the wall clock decides are made: how many reads saw the table change
     * while the job ran depends on how fast a loaded machine reads. Asked for with {@code
     * -Dwalsink.timing-bounds=true}; without it one change (the first read with rows) is asked for.
     */
    static final boolean TIMING_BOUNDS = Boolean.getBoolean("walsink.timing-bounds");

    /**
     * Waits until this reader has made {@code reads} reads that returned rows (a finished job's
     * table counts too), so that how many it made is not up to how fast a loaded machine ran them;
     * returns early if the poller stopped, and fails if no such reads come in five minutes (a
     * table left empty).
     */
    void awaitReadsWithRows(int reads) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (nonEmptyPolls.get() < reads && thread.isAlive() && failure == null) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError("the " + name + " reader made " + nonEmptyPolls.get() + " of " + reads
                        + " reads with rows in five minutes: " + this);
            }
            Thread.sleep(pollIntervalMillis); // polls the count; each pass reads it
        }
    }

    void assertReadWell(long seed, int minReadsWithRows, int minChangesSeen, String context) {
        org.assertj.core.api.Assertions.assertThat(violations())
                .as("what the %s reader saw, seed %d; %s", name, seed, context)
                .isEmpty();
        org.assertj.core.api.Assertions.assertThat(failedReads())
                .as("%s reads that failed, seed %d (the first: %s)", name, seed, failures)
                .isZero();
        org.assertj.core.api.Assertions.assertThat(nonEmptyPolls())
                .as("%s reads with rows, seed %d: %s", name, seed, this)
                .isGreaterThanOrEqualTo(minReadsWithRows);
        org.assertj.core.api.Assertions.assertThat(changesSeen())
                .as("%s reads that saw the table change, seed %d: %s", name, seed, this)
                .isGreaterThanOrEqualTo(TIMING_BOUNDS ? minChangesSeen : Math.min(minChangesSeen, 1));
    }

    /**
     * The start of the read whose rows an {@link #afterReads} action is being handed: what it saw
     * was visible by then or during the read, whose own length (seconds for a LanceDB read on a
     * loaded machine) is the reader's cost, not the sink's.
     */
    long readStartedMillis() {
        return readStartedMillis;
    }

    /**
     * Hands the rows of each read that starts from now on to {@code action}, until it returns
     * true.
     */
    void afterReads(Predicate<Map<Long, String>> action) {
        afterReads.add(action);
    }

    private void loop() {
        try {
            do {
                List<Predicate<Map<Long, String>>> waiting = new ArrayList<>();
                for (Predicate<Map<Long, String>> w; (w = afterReads.poll()) != null; ) {
                    waiting.add(w);
                }
                Map<Long, String> rows = null;
                boolean failed = false;
                try {
                    readStartedMillis = System.currentTimeMillis();
                    rows = reader.read();
                    if (rows == null && polls.get() > 0) {
                        throw new IllegalStateException("the table is gone after " + polls.get() + " reads");
                    }
                } catch (Exception e) {
                    failed = true;
                    if (failedReads.incrementAndGet() <= 5) {
                        failures.add(e.toString());
                    }
                }
                if (rows != null) {
                    check(rows, covered.getAsLong()); // the bound is asked after the read ended
                    polls.incrementAndGet();
                    Map<Long, String> read = rows;
                    waiting.removeIf(w -> w.test(read));
                } else if (!failed) {
                    notThereYet.incrementAndGet();
                }
                afterReads.addAll(waiting);
            } while (!stop.await(pollIntervalMillis, TimeUnit.MILLISECONDS)); // pacing, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure = t;
        }
    }

    /**
     * Checks one snapshot of the table against what the reader knew before; {@code bound}: values
     * of change {@code bound} or later appeared early.
     */
    void check(Map<Long, String> snapshot, long bound) {
        current = snapshot;
        currentBound = bound;
        rowsChecked.addAndGet(snapshot.size());
        if (!snapshot.isEmpty()) {
            nonEmptyPolls.incrementAndGet();
            if (!snapshot.equals(previous)) {
                changesSeen.incrementAndGet();
            }
        }
        for (Map.Entry<Long, String> row : snapshot.entrySet()) {
            long key = row.getKey();
            String value = row.getValue();
            long seen;
            try {
                seen = Long.parseLong(value.substring(1));
            } catch (RuntimeException e) {
                violate(Violation.PHANTOM, "key " + key + " shows " + value + ", which the input never wrote");
                continue;
            }
            if (seen < 0 || seen >= n || changes.keyOf(seen) != key || changes.isDelete(seen)) {
                violate(
                        Violation.PHANTOM,
                        "key " + key + " shows v" + seen + ", which is not an upsert of that key in the input");
                continue;
            }
            if (seen >= bound) {
                violate(
                        Violation.EARLY,
                        "key " + key + " shows v" + seen + " early: the newest checkpoint completed by the end of"
                                + " the read covers changes below " + bound + " only");
            }
            Long before = known.get(key);
            if (before != null && before > seen) {
                violate(
                        Violation.REGRESSION,
                        "key " + key + " went from "
                                + (knownDeleted.get(key) ? "absent after the delete at change " : "v") + before
                                + " back to v"
                                + seen);
            }
            known.put(key, seen);
            knownDeleted.put(key, false);
        }
        for (Map.Entry<Long, Long> k : known.entrySet()) {
            long key = k.getKey();
            if (snapshot.containsKey(key) || knownDeleted.get(key)) {
                continue;
            }
            NavigableSet<Long> keyDeletes = deletes.get(key);
            Long delete = keyDeletes == null ? null : keyDeletes.higher(k.getValue());
            if (delete == null) {
                violate(
                        Violation.VANISHED,
                        "key " + key + " vanished after v" + k.getValue() + " although no later change deletes it");
            } else {
                // the table is now at or after that delete
                k.setValue(delete);
                knownDeleted.put(key, true);
            }
        }
        previous = snapshot;
    }

    /** {@link #check(Map, long)} bounded by the input alone. */
    void check(Map<Long, String> snapshot) {
        check(snapshot, n);
    }

    private void violate(Violation kind, String what) {
        violationCounts.get(kind).incrementAndGet();
        if (violations.size() < 50) {
            String note = readNote.get();
            violations.add(name + " reader: " + what + " (read " + (polls.get() + 1) + " of " + current.size()
                    + " rows, after one of " + previous.size() + "; bound " + currentBound
                    + (note.isEmpty() ? "" : "; " + note) + ")");
        }
    }

    /** Stops polling; fails if the poller itself broke (failed reads are counted, see {@link #failures()}). */
    @Override
    public void close() throws InterruptedException {
        stop.countDown();
        thread.join(TimeUnit.MINUTES.toMillis(1));
        if (thread.isAlive()) {
            throw new AssertionError("the " + name + " read poller did not stop within a minute");
        }
        if (failure != null) {
            throw new AssertionError("the " + name + " read poller failed after " + polls.get() + " reads", failure);
        }
    }

    @Override
    public String toString() {
        return name + ": " + polls.get() + " reads (" + nonEmptyPolls.get() + " non-empty, " + changesSeen.get()
                + " saw the table change, " + notThereYet.get() + " before the table existed), " + failedReads.get()
                + " failed reads " + failures + ", " + violations.size() + " violations"
                + (violations.isEmpty() ? "" : " " + violations.subList(0, Math.min(3, violations.size())));
    }
}
