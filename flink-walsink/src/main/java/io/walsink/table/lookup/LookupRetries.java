package io.walsink.table.lookup;

import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a read of the table up to {@code lookup.max-retries} more times when it fails: the
 * failure may come from a passing storage error or from objects garbage collection removed
 * after a long pause, which reopening (done by {@code reset}) gets past.
 */
final class LookupRetries {
    private static final Logger LOG = LoggerFactory.getLogger(LookupRetries.class);

    private LookupRetries() {}

    /**
     * @param what names the read in the messages, e.g. "Lookup in walsink table ..."
     * @param reset runs after each failure, before the next attempt
     * @throws IOException naming {@code what} and the attempts, caused by the last failure
     */
    static <T> T call(String what, int maxRetries, Supplier<T> read, Runnable reset) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return read.get();
            } catch (RuntimeException e) {
                reset.run();
                if (attempt >= maxRetries) {
                    throw new IOException(what + " failed after " + (attempt + 1) + " attempts", e);
                }
                LOG.warn("{} failed (attempt {}); reopening, trying again", what, attempt + 1, e);
            }
        }
    }
}
