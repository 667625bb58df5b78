package io.walsink.flink;

import io.walsink.format.table.TableNotFoundException;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A reader of the published table (COMMITTED mode) polling while a job writes the first {@code n}
 * changes of a {@link ChangeGenerator}, and what it may see: a value that is a change of the input
 * for that key, never an older value after a newer one, and a key absent only if the input has a
 * delete of it after the newest state the reader knew of (otherwise it vanished).
 *
 * <p>Only "table not there yet" ({@link TableNotFoundException}, before the job created it) is an
 * expected failure; any other exception stops the poller and is reported by {@link #close()}.
 */
final class CommittedReadPoller implements AutoCloseable {
    private final Path table;
    private final ChangeGenerator changes;
    private final long n;
    private final long pollIntervalMillis;
    private final Map<Long, NavigableSet<Long>> deletes;
    /** Per key, the change number the published state is known to be at or after. */
    private final Map<Long, Long> known = new HashMap<>();
    /** Whether {@link #known} of a key is a delete (the key was seen absent after it). */
    private final Map<Long, Boolean> knownDeleted = new HashMap<>();

    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger nonEmptyPolls = new AtomicInteger();
    private final AtomicInteger changesSeen = new AtomicInteger();
    private Map<Long, String> previous = Map.of();
    private Map<Long, String> current = Map.of();
    private final AtomicInteger notThereYet = new AtomicInteger();
    private final Queue<Predicate<Map<Long, String>>> afterReads = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile Throwable failure;

    CommittedReadPoller(Path table, ChangeGenerator changes, long n, long pollIntervalMillis) {
        this.table = table;
        this.changes = changes;
        this.n = n;
        this.pollIntervalMillis = pollIntervalMillis;
        this.deletes = changes.deletes(n);
        this.thread = new Thread(this::loop, "committed-read-poller");
        this.thread.setDaemon(true);
    }

    CommittedReadPoller start() {
        thread.start();
        return this;
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

    List<String> violations() {
        return violations;
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
                try {
                    Map<Long, String> rows = HarnessSupport.read(table, ReadMode.COMMITTED);
                    check(rows);
                    polls.incrementAndGet();
                    waiting.removeIf(w -> w.test(rows));
                } catch (TableNotFoundException notYetThere) {
                    // the job creates the table; until then there is nothing to read
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

    /** Checks one snapshot of the published table against what the reader knew before. */
    void check(Map<Long, String> snapshot) {
        current = snapshot;
        if (!snapshot.isEmpty()) {
            nonEmptyPolls.incrementAndGet();
            if (!snapshot.equals(previous)) {
                changesSeen.incrementAndGet();
            }
        }
        for (Map.Entry<Long, String> row : snapshot.entrySet()) {
            long key = row.getKey();
            long seen = Long.parseLong(row.getValue().substring(1));
            if (seen < 0 || seen >= n || changes.keyOf(seen) != key || changes.isDelete(seen)) {
                violate("key " + key + " shows v" + seen + ", which is not an upsert of that key in the input");
                continue;
            }
            Long before = known.get(key);
            if (before != null && before > seen) {
                violate("key " + key + " went from "
                        + (knownDeleted.get(key) ? "absent after the delete at change " : "v") + before + " back to v"
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
                violate("key " + key + " vanished after v" + k.getValue() + " although no later change deletes it");
            } else {
                // the published state is now at or after that delete
                k.setValue(delete);
                knownDeleted.put(key, true);
            }
        }
        previous = snapshot;
    }

    private void violate(String what) {
        if (violations.size() < 50) {
            violations.add(what + " (read " + (polls.get() + 1) + " of " + current.size() + " rows, after one of "
                    + previous.size() + ")");
        }
    }

    /** Stops polling; fails if the poller met anything but "table not there yet". */
    @Override
    public void close() throws InterruptedException {
        stop.countDown();
        thread.join(TimeUnit.MINUTES.toMillis(1));
        if (thread.isAlive()) {
            throw new AssertionError("the committed-read poller did not stop within a minute");
        }
        if (failure != null) {
            throw new AssertionError("the committed-read poller failed after " + polls.get() + " reads", failure);
        }
    }

    @Override
    public String toString() {
        return polls.get() + " reads (" + nonEmptyPolls.get() + " non-empty, " + changesSeen.get()
                + " saw the table change, " + notThereYet.get()
                + " before the table existed), " + violations.size() + " violations";
    }
}
