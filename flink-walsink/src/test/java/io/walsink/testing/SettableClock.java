package io.walsink.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it: simulated time without sleeping. */
public final class SettableClock extends Clock {
    private volatile Instant now;

    public SettableClock(Instant start) {
        this.now = start;
    }

    public Instant now() {
        return now;
    }

    public void set(Instant instant) {
        now = instant;
    }

    public Instant advance(Duration by) {
        now = now.plus(by);
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a settable clock is always UTC");
    }

    @Override
    public Instant instant() {
        return now;
    }
}
