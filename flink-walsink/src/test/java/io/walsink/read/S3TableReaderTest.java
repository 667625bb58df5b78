package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.LanceRows;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import io.walsink.testing.S3MockServer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SSTables written by lance-core to an S3 server (s3mock), manifests and WAL through our S3 store. */
class S3TableReaderTest {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    /** lance-core (Rust object_store) option names for an S3-compatible endpoint over plain HTTP. */
    private static Map<String, String> lanceOptions() {
        return Map.of(
                "aws_endpoint", S3.endpoint().toString(),
                "aws_region", "us-east-1",
                "aws_access_key_id", "walsink-test-key",
                "aws_secret_access_key", "walsink-test-secret",
                "allow_http", "true",
                "aws_virtual_hosted_style_request", "false");
    }

    private static RowOp put(long id, String name, Integer score) {
        return RowOp.put(row("id", id, "name", name, "score", score));
    }

    @Test
    void ssTablesOnS3AreWrittenAndReadBack() {
        String uri = "s3://" + S3MockServer.BUCKET + "/sstable-" + UUID.randomUUID() + "/table";
        LanceTables.create(uri, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), lanceOptions());
        try (ObjectStore store = ObjectStores.open(uri, S3.options())) {
            MemWalTable table = new MemWalTable(uri, lanceOptions(), store, WalSchemaProfile.SPEC, allocator);
            List<RowOp> base = List.of(put(1, "base", 1), put(2, "base", 2));
            List<RowOp> gen1 = List.of(put(2, "g1", 20), put(3, "g1", 30), put(2, "g1b", 21));
            List<RowOp> wal = List.of(put(3, "w", 31), RowOp.delete(row("id", 1L)));
            table.writeBase(base);
            MemWalTable.Shard s = table.shard();
            WrittenSsTable t = s.flush(gen1, 2);
            s.publish();
            s.walEntry(wal);

            assertThat(store.listAll("_mem_wal/" + s.id() + "/" + t.path() + "/_versions/"))
                    .isNotEmpty();
            // the key index is written through lance-core, like the SSTable, with the same options
            assertThat(store.listAll("_mem_wal/" + s.id() + "/" + t.path() + "/_pk_index/"))
                    .extracting(ObjectMeta::key)
                    .containsExactlyInAnyOrder(
                            "_mem_wal/" + s.id() + "/" + t.path() + "/_pk_index/page_data.lance",
                            "_mem_wal/" + s.id() + "/" + t.path() + "/_pk_index/page_lookup.lance");
            // Forward insert order of the newest rows: (3, g1) was put before (2, g1b).
            assertThat(LanceRows.scan(allocator, uri + "/_mem_wal/" + s.id() + "/" + t.path(), lanceOptions()))
                    .extracting(r -> r.get("id"), r -> r.get("name"))
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(3L, "g1"),
                            org.assertj.core.groups.Tuple.tuple(2L, "g1b"));

            TableReader reader =
                    new TableReader(new TableLocation(store, uri, lanceOptions()), WalSchemaProfile.SPEC, allocator);
            RowModel model = new RowModel(TableReaderTest.COLUMNS, List.of("id"))
                    .apply(base)
                    .apply(gen1);
            assertThat(reader.read(ReadMode.COMMITTED).rows()).containsExactlyElementsOf(model.rows());
            // No LsmScanner cross-check here: lance-core 7.0.0's LsmScanner.fromSnapshots opens the
            // SSTables without the dataset's storage options ("Failed to resolve region for bucket").
            assertThat(reader.read(ReadMode.LATEST).rows())
                    .containsExactlyElementsOf(model.apply(wal).rows());
        }
    }
}
