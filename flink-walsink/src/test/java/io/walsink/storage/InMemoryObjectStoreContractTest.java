package io.walsink.storage;

import io.walsink.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;

class InMemoryObjectStoreContractTest extends ObjectStoreContractTest {
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Override
    protected ObjectStore createStore() {
        return new InMemoryObjectStore("memory://", clock);
    }

    @Override
    protected Instant now() {
        return clock.instant();
    }

    @Override
    protected Duration lastModifiedTolerance() {
        return Duration.ZERO;
    }

    @Override
    protected void advancePast(Instant written) {
        clock.advance(Duration.ofSeconds(1));
    }
}
