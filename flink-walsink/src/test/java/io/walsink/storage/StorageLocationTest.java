package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class StorageLocationTest {

    @Test
    void fileUriIsALocalDirectory() {
        assertThat(StorageLocation.parse("file:///data/tables/orders"))
                .isEqualTo(new StorageLocation.Local(Path.of("/data/tables/orders")));
        assertThat(StorageLocation.parse("file://localhost/data/t"))
                .isEqualTo(new StorageLocation.Local(Path.of("/data/t")));
    }

    @Test
    void plainPathsAreLocalDirectories() {
        assertThat(StorageLocation.parse("/abs/path/")).isEqualTo(new StorageLocation.Local(Path.of("/abs/path")));
        assertThat(StorageLocation.parse("relative/dir"))
                .isEqualTo(new StorageLocation.Local(Path.of("relative/dir").toAbsolutePath()));
    }

    @ParameterizedTest
    @CsvSource({
        "s3://bucket, bucket, ''",
        "s3://bucket/, bucket, ''",
        "s3://my-bucket/tables/orders, my-bucket, tables/orders",
        "s3://my.bucket/tables/orders/, my.bucket, tables/orders",
    })
    void s3PathsSplitIntoBucketAndPrefix(String path, String bucket, String prefix) {
        assertThat(StorageLocation.parse(path)).isEqualTo(new StorageLocation.S3(bucket, prefix));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "s3://|has no bucket",
                "s3:///x|has no bucket",
                "s3:bucket/x|must look like s3://bucket/prefix",
                "s3://Bad_Bucket/x|invalid bucket name",
                "s3://bucket//x|empty segment",
                "hdfs://namenode/tables|unsupported scheme 'hdfs'",
                "gs://bucket/x|unsupported scheme 'gs'",
                "file://host/tables|a file URI needs three slashes",
                "file:relative|not an absolute file URI",
            })
    void malformedPathsAreRejectedWithTheReason(String path, String reason) {
        assertThatThrownBy(() -> StorageLocation.parse(path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + path + "'")
                .hasMessageContaining(reason);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"   "})
    void emptyPathIsRejected(String path) {
        assertThatThrownBy(() -> StorageLocation.parse(path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("storage path is empty");
    }
}
