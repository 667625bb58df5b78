package io.walsink.storage;

import io.walsink.testing.S3MockServer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against s3mock, a real S3-protocol server; each test gets its own key prefix. */
class S3ObjectStoreContractTest extends ObjectStoreContractTest {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    @Override
    protected ObjectStore createStore() {
        return S3ObjectStore.open(S3MockServer.BUCKET, "contract/" + UUID.randomUUID(), S3.options());
    }

    @Override
    protected int listingKeyCount() {
        return 250;
    }

    @Override
    protected Duration lastModifiedResolution() {
        return Duration.ofSeconds(1);
    }

    @Override
    protected boolean putIfAbsentIsAtomic() {
        return false;
    }
}
