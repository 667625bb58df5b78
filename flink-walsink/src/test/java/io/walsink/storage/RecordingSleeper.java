package io.walsink.storage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link Sleeper} that returns at once and remembers what it was asked to wait. */
public final class RecordingSleeper implements Sleeper {
    private final List<Duration> waits = new CopyOnWriteArrayList<>();

    @Override
    public void sleep(Duration duration) {
        waits.add(duration);
    }

    public List<Duration> waits() {
        return List.copyOf(waits);
    }
}
