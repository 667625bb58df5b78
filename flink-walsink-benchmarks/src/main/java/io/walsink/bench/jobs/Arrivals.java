package io.walsink.bench.jobs;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When each row of one table first reached {@link PipelineLatencyReport}'s observer job, and the
 * {@code created_ms} it carried, by sequence number. The observer runs on the local cluster in
 * this JVM, so it finds this log by name and its clock is the generator's.
 */
final class Arrivals {
    private static final Map<String, Arrivals> OPEN = new ConcurrentHashMap<>();

    private final AtomicLongArray arrivedMs;
    private final AtomicLongArray createdMs;
    private final CountDownLatch missing;
    private final AtomicLong repeated = new AtomicLong();
    private final AtomicLong unexpected = new AtomicLong();

    private Arrivals(int rows) {
        arrivedMs = new AtomicLongArray(rows);
        createdMs = new AtomicLongArray(rows);
        missing = new CountDownLatch(rows);
    }

    /** A new log for rows {@code [0, rows)}, found by {@link #named} until {@link #close}d. */
    static Arrivals open(String name, int rows) {
        Arrivals log = new Arrivals(rows);
        if (OPEN.putIfAbsent(name, log) != null) {
            throw new IllegalStateException("arrival log " + name + " is already open");
        }
        return log;
    }

    static Arrivals named(String name) {
        Arrivals log = OPEN.get(name);
        if (log == null) {
            throw new IllegalStateException("no arrival log " + name);
        }
        return log;
    }

    static void close(String name) {
        OPEN.remove(name);
    }

    /** Keeps the first arrival of {@code seq}; a second one, or a number out of range, is counted. */
    void arrived(long seq, long created, long nowMs) {
        if (seq < 0 || seq >= arrivedMs.length()) {
            unexpected.incrementAndGet();
            return;
        }
        int i = (int) seq;
        if (arrivedMs.compareAndSet(i, 0, nowMs)) {
            createdMs.set(i, created);
            missing.countDown();
        } else {
            repeated.incrementAndGet();
        }
    }

    /** Waits until every row arrived, at most {@code timeout}; false if some did not. */
    boolean awaitAll(Duration timeout) throws InterruptedException {
        return missing.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int rows() {
        return arrivedMs.length();
    }

    long seen() {
        return rows() - missing.getCount();
    }

    boolean seen(int seq) {
        return arrivedMs.get(seq) != 0;
    }

    long arrivedMs(int seq) {
        return arrivedMs.get(seq);
    }

    long createdMs(int seq) {
        return createdMs.get(seq);
    }

    /** Rows that arrived again after their first arrival (an exactly-once pipeline has none). */
    long repeated() {
        return repeated.get();
    }

    /** Rows with a sequence number no generated row has. */
    long unexpected() {
        return unexpected.get();
    }
}
