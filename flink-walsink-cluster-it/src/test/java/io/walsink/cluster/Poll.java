package io.walsink.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * Waits for a state by asking for it again and again until a deadline; a timeout fails with what
 * was seen. The pause between probes only spaces out the requests, nothing depends on its length.
 */
final class Poll {
    private static final long PAUSE_MILLIS = 250;

    private Poll() {}

    static <T> T until(Duration timeout, String what, Callable<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = new ArrayList<>();
        while (true) {
            T value = null;
            try {
                value = probe.call();
                if (value != null && done.test(value)) {
                    return value;
                }
                note(seen, String.valueOf(value));
            } catch (Exception e) {
                note(seen, e.toString());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "timed out after " + timeout.toSeconds() + " s waiting for " + what + "; seen: " + seen);
            }
            try {
                Thread.sleep(PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    /** Keeps the distinct observations, the last ten of them. */
    private static void note(List<String> seen, String value) {
        if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(value)) {
            seen.add(value);
            if (seen.size() > 10) {
                seen.remove(0);
            }
        }
    }
}
