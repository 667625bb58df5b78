package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a subtask's shard restores side by side instead of one after another.
 *
 * <p>Why: a restore is a dozen or more store requests in sequence (claim, manifests, WAL listing
 * and tail, the base table's merge progress), each a round trip to S3. One after another, a
 * subtask holding 128 buckets waited 128 times that chain before taking its first row after a
 * failover. The restores touch disjoint shards; what they share (the table context, the allocator,
 * the store clients) is safe to use from several threads.
 *
 * <p>All opens run to their end even when one fails, so that none is left half-claimed by a thread
 * still running; then the first failure is thrown and every result that did open is closed.
 */
@Internal
public final class ConcurrentOpens {
    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentOpens.class);

    private ConcurrentOpens() {}

    /**
     * The results of {@code opens}, in their order, computed by up to {@code parallelism} threads
     * named after {@code threadName}.
     */
    public static <T extends AutoCloseable> List<T> run(List<Supplier<T>> opens, int parallelism, String threadName) {
        if (opens.size() <= 1 || parallelism <= 1) {
            return sequential(opens);
        }
        AtomicInteger count = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, opens.size()), r -> {
            Thread t = new Thread(r, threadName + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>(opens.size());
            for (Supplier<T> open : opens) {
                futures.add(pool.submit(open::get));
            }
            return collect(futures, pool);
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T extends AutoCloseable> List<T> sequential(List<Supplier<T>> opens) {
        List<T> opened = new ArrayList<>(opens.size());
        try {
            for (Supplier<T> open : opens) {
                opened.add(open.get());
            }
            return opened;
        } catch (RuntimeException | Error e) {
            closeAll(opened, e);
            throw e;
        }
    }

    /** Waits for every future; on a failure closes what opened and throws the first failure. */
    private static <T extends AutoCloseable> List<T> collect(List<Future<T>> futures, ExecutorService pool) {
        List<T> opened = new ArrayList<>(futures.size());
        Throwable failure = null;
        boolean interrupted = false;
        for (Future<T> f : futures) {
            while (true) {
                try {
                    opened.add(f.get());
                    break;
                } catch (ExecutionException e) {
                    failure = first(failure, e.getCause());
                    break;
                } catch (CancellationException e) {
                    break; // never started: the interrupt below is the failure
                } catch (InterruptedException e) {
                    // The task is cancelled: opens not yet started never will be (their futures are
                    // cancelled, or waiting for them would never end); running ones are interrupted
                    // and waited for, so that none opens unseen.
                    interrupted = true;
                    for (Runnable neverStarted : pool.shutdownNow()) {
                        ((Future<?>) neverStarted).cancel(false);
                    }
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            IllegalStateException cancelled = new IllegalStateException("interrupted while reopening shards");
            if (failure != null) {
                cancelled.addSuppressed(failure);
            }
            failure = cancelled;
        }
        if (failure == null) {
            return opened;
        }
        closeAll(opened, failure);
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException(failure);
    }

    private static Throwable first(Throwable earlier, Throwable next) {
        if (earlier == null) {
            return next;
        }
        earlier.addSuppressed(next);
        return earlier;
    }

    private static void closeAll(List<? extends AutoCloseable> opened, Throwable cause) {
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
        if (!opened.isEmpty()) {
            LOG.warn("Closed {} shards opened beside a restore that failed", opened.size());
        }
    }
}
