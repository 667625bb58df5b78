package io.walsink.storage;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreContractTest extends ObjectStoreContractTest {
    @TempDir
    Path root;

    @Override
    protected ObjectStore createStore() {
        return new LocalObjectStore(root.resolve("table"));
    }

    /** File times come from the kernel's coarse clock, which ticks every few milliseconds. */
    @Override
    protected Duration lastModifiedResolution() {
        return Duration.ofMillis(10);
    }

    /** Each put-if-absent fsyncs a file and its directory; 1,000 keys keep the test to a few seconds. */
    @Override
    protected int listingKeyCount() {
        return 1_000;
    }
}
