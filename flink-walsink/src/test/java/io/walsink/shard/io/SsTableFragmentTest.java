package io.walsink.shard.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.testing.AllocatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;

/**
 * The SSTable's dataset is created as lance-core's own write creates one (version 1, V2 manifest
 * paths), and a folder that holds a dataset already is not taken for a new one.
 */
class SsTableFragmentTest {
    private static final Schema SCHEMA = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void createsVersionOneWithTheManifestPathsOfLanceCoresOwnWrite() throws Exception {
        String uri = dir.resolve("sstable").toString();
        try (Dataset created = SsTableFragment.commitNew(uri, fragment(uri), SCHEMA, allocator, Map.of())) {
            assertThat(created.version()).isEqualTo(1);
            assertThat(created.countRows()).isEqualTo(3);
        }
        try (Stream<Path> versions = Files.list(dir.resolve("sstable/_versions"))) {
            // the V2 scheme names version v by u64::MAX - v
            assertThat(versions.map(p -> p.getFileName().toString())).contains("18446744073709551614.manifest");
        }
    }

    @Test
    void aFolderHoldingADatasetIsRefused() throws Exception {
        String uri = dir.resolve("sstable").toString();
        SsTableFragment.commitNew(uri, fragment(uri), SCHEMA, allocator, Map.of())
                .close();
        assertThatThrownBy(() -> SsTableFragment.commitNew(uri, fragment(uri), SCHEMA, allocator, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("held a dataset already");
    }

    private List<FragmentMetadata> fragment(String uri) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            BigIntVector id = (BigIntVector) root.getVector(0);
            id.allocateNew(3);
            for (int i = 0; i < 3; i++) {
                id.set(i, i);
            }
            root.setRowCount(3);
            return Fragment.create(
                    uri,
                    allocator,
                    root,
                    new WriteParams.Builder()
                            .withMaxRowsPerFile(Integer.MAX_VALUE)
                            .build());
        }
    }
}
