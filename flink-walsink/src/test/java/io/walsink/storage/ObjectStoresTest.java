package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoresTest {
    @TempDir
    Path root;

    @Test
    void fileUriOpensARetryingLocalStore() {
        try (ObjectStore store = ObjectStores.open(root.toUri().toString(), null)) {
            assertThat(store).isInstanceOf(RetryingObjectStore.class);
            assertThat(((RetryingObjectStore) store).delegate()).isInstanceOf(LocalObjectStore.class);
            store.putIfAbsent("x", new byte[] {1});
            assertThat(root.resolve("x")).exists();
        }
    }

    @Test
    void plainPathOpensTheSameDirectory() {
        try (ObjectStore store = ObjectStores.open(root.toString(), null)) {
            store.put("y", new byte[] {2});
            assertThat(root.resolve("y")).exists();
        }
    }

    @Test
    void s3PathOpensAnS3Store() {
        S3Options options = S3Options.builder()
                .endpoint("http://localhost:1")
                .region("us-east-1")
                .staticCredentials("k", "s")
                .build();
        try (ObjectStore store = ObjectStores.open("s3://bucket/tables/t1", options)) {
            assertThat(((RetryingObjectStore) store).delegate()).isInstanceOf(S3ObjectStore.class);
            assertThat(store.describe()).isEqualTo("s3://bucket/tables/t1/");
        }
    }

    @Test
    void malformedPathFailsBeforeAnyStoreIsOpened() {
        assertThatThrownBy(() -> ObjectStores.open("hdfs://nn/t", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hdfs://nn/t");
    }
}
