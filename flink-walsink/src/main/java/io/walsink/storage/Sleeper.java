package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.time.Duration;

/** Waits between retries; injected so that tests control time instead of sleeping. */
@FunctionalInterface
@Internal
public interface Sleeper {
    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);

    void sleep(Duration duration) throws InterruptedException;
}
