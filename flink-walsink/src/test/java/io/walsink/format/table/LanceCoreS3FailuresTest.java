package io.walsink.format.table;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.shard.io.SsTableWriteException;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.StorageException;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowOp;
import io.walsink.testing.S3MockServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * lance-core does its own S3 I/O; its failures name the table or SSTable, the operation and the
 * likely cause instead of a bare "LanceError(IO): Generic S3 error ... /workspace/rust/...".
 * Against s3mock: a bucket that does not exist, and an endpoint where nothing listens.
 */
class LanceCoreS3FailuresTest {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final String missingBucket =
            "walsink-missing-" + UUID.randomUUID().toString().substring(0, 8);

    private static Map<String, String> lanceOptions(String endpoint) {
        Map<String, String> options = new HashMap<>();
        options.put("aws_endpoint", endpoint);
        options.put("aws_region", "us-east-1");
        options.put("aws_access_key_id", "walsink-test-key");
        options.put("aws_secret_access_key", "walsink-test-secret");
        options.put("allow_http", "true");
        options.put("aws_virtual_hosted_style_request", "false");
        return options;
    }

    /** An http endpoint on a port that was free a moment ago, so nothing answers there. */
    private static String deadEndpoint() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    private static void assertNoRustSourceLocations(Throwable e) {
        assertThat(e.getMessage()).doesNotContain("/workspace/rust/").doesNotContain(".rs:");
    }

    @Test
    void openingATableInAMissingBucket() {
        String uri = "s3://" + missingBucket + "/tables/t";

        assertThatThrownBy(() -> LanceTables.openDataset(
                        allocator, uri, lanceOptions(S3.endpoint().toString())))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.location()).isEqualTo(uri);
                    assertThat(e.isTransient()).isFalse();
                    assertNoRustSourceLocations(e);
                })
                .hasMessageStartingWith(uri + ": opening the Lance dataset through lance-core failed: bucket '"
                        + missingBucket + "' does not exist; lance-core said: ")
                .hasMessageContaining("NoSuchBucket");
    }

    @Test
    void creatingATableWhereNoS3ServerListens() throws IOException {
        String uri = "s3://" + S3MockServer.BUCKET + "/lance-failures-" + UUID.randomUUID() + "/t";
        String endpoint = deadEndpoint();

        assertThatThrownBy(() -> LanceTables.create(
                        uri, TABLE, List.of("id"), TableSharding.unsharded(), lanceOptions(endpoint)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.isTransient()).isTrue();
                    assertNoRustSourceLocations(e);
                })
                .hasMessageStartingWith(uri + ": creating the Lance table through lance-core failed: cannot connect"
                        + " to the S3 endpoint " + endpoint);
    }

    @Test
    void writingAnSsTableIntoAMissingBucket() {
        String local = dir.resolve("schema-source").toString();
        WalStorageSchema storage = WalStorageSchema.of(
                LanceTables.create(local, TABLE, List.of("id"), TableSharding.unsharded(), Map.of()),
                WalSchemaProfile.SPEC);
        String uri = "s3://" + missingBucket + "/tables/t";
        // The writer's own store plays no part: lance-core writes the SSTable.
        SsTableWriter writer = new SsTableWriter(
                new TableLocation(
                        new LocalObjectStore(dir),
                        uri,
                        lanceOptions(S3.endpoint().toString())),
                UUID.randomUUID(),
                storage,
                allocator);

        try (Memtable frozen =
                new Memtables(storage, allocator).frozen(4, 4, List.of(RowOp.put(row("id", 1L, "name", "a"))), 1)) {
            assertThatThrownBy(() -> writer.write(frozen))
                    .isInstanceOfSatisfying(SsTableWriteException.class, e -> {
                        assertThat(e.location()).startsWith(uri + "/_mem_wal/").matches(".*_gen_4");
                        assertNoRustSourceLocations(e);
                    })
                    .hasMessageContaining(": writing SSTable of generation 4 failed: bucket '" + missingBucket
                            + "' does not exist; lance-core said: ");
        }
    }

    @Test
    void readingWhenLanceCoreCannotReachTheEndpoint() throws IOException {
        String uri = "s3://" + S3MockServer.BUCKET + "/lance-failures-" + UUID.randomUUID() + "/t";
        LanceTables.create(
                uri,
                TABLE,
                List.of("id"),
                TableSharding.unsharded(),
                lanceOptions(S3.endpoint().toString()));
        String endpoint = deadEndpoint();
        try (ObjectStore store = ObjectStores.open(uri, S3.options())) {
            SnapshotReader reader = new SnapshotReader(
                    new TableLocation(store, uri, lanceOptions(endpoint)), WalSchemaProfile.SPEC, allocator);

            assertThatThrownBy(() -> reader.read(ReadMode.COMMITTED))
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith(uri + ": opening the Lance dataset through lance-core failed: cannot"
                            + " connect to the S3 endpoint " + endpoint);
        }
    }
}
