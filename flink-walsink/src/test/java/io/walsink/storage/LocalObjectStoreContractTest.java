package io.walsink.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreContractTest extends ObjectStoreContractTest {
    @TempDir
    Path root;

    @Override
    protected ObjectStore createStore() {
        return new LocalObjectStore(root.resolve("table"));
    }

    /** Each put-if-absent fsyncs a file and its directory; 1,000 keys keep the test to a few seconds. */
    @Override
    protected int listingKeyCount() {
        return 1_000;
    }
}
