package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardManifestCodec;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.io.WrittenSsTable;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new writer copies the SSTables of the manifest it claims into its own versions: a path
 * leading out of the shard folder, or a folder of another generation, must be refused before
 * anything is written, naming the manifest object and the path.
 */
class ShardOpenerPathValidationTest {
    private static final String TRAVERSAL = "../../../elsewhere_gen_9";

    @TempDir
    Path dir;

    private ShardFixture fixture() {
        return new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
    }

    /** Claims the shard once, then writes version 2 as raw bytes holding {@code extra}. */
    private static String corruptVersion2(ShardFixture f, SsTable extra) {
        f.open().close();
        ManifestStore manifests = new ManifestStore(f.store.delegate(), ShardFixture.SHARD);
        ShardManifest v1 = manifests.read(1);
        ShardManifest v2 = v1.toBuilder()
                .version(2)
                .currentGeneration(extra.generation() + 1)
                .addSstable(extra)
                .build();
        f.store.delegate().putIfAbsent(manifests.versionKey(2), ShardManifestCodec.encode(v2));
        return manifests.location(manifests.versionKey(2));
    }

    private static void assertNothingWrittenAfterVersion2(ShardFixture f) {
        ManifestStore manifests = new ManifestStore(f.store.delegate(), ShardFixture.SHARD);
        assertThat(manifests.listVersions()).containsExactly(1L, 2L);
    }

    @Test
    void openRefusesATraversalPath() {
        try (ShardFixture f = fixture()) {
            String manifest = corruptVersion2(f, SsTable.of(9, TRAVERSAL));

            assertThatThrownBy(f::open)
                    .isInstanceOf(FormatException.class)
                    .hasMessageContaining(manifest)
                    .hasMessageContaining("'" + TRAVERSAL + "'");
            assertNothingWrittenAfterVersion2(f);
        }
    }

    @Test
    void restoreRefusesATraversalPath() {
        try (ShardFixture f = fixture()) {
            String manifest = corruptVersion2(f, SsTable.of(9, TRAVERSAL));

            assertThatThrownBy(() -> f.restore(ShardDescriptor.empty(ShardFixture.SHARD, 0)))
                    .isInstanceOf(FormatException.class)
                    .hasMessageContaining(manifest)
                    .hasMessageContaining("'" + TRAVERSAL + "'");
            assertNothingWrittenAfterVersion2(f);
        }
    }

    @Test
    void openRefusesAFolderOfAnotherGeneration() {
        try (ShardFixture f = fixture()) {
            String manifest = corruptVersion2(f, SsTable.of(3, "0a0b0c0d_gen_2"));

            assertThatThrownBy(f::open)
                    .isInstanceOf(FormatException.class)
                    .hasMessageContaining(manifest)
                    .hasMessageContaining("'0a0b0c0d_gen_2'");
            assertNothingWrittenAfterVersion2(f);
        }
    }

    /** ".." has no slash, yet names the folder above the shard: it must never reach a manifest. */
    @Test
    void restoreNeverPublishesADescriptorPathOutsideTheShard() {
        try (ShardFixture f = fixture()) {
            f.open().close();

            assertThatThrownBy(() -> f.restore(new ShardDescriptor(
                            ShardFixture.SHARD,
                            0,
                            1,
                            0,
                            1,
                            2,
                            0,
                            0,
                            0,
                            List.of(new WrittenSsTable(1, "..", 1, 1, 1, 1)))))
                    .hasMessageContaining("'..'");
            ManifestStore manifests = new ManifestStore(f.store.delegate(), ShardFixture.SHARD);
            for (long v : manifests.listVersions()) {
                assertThat(manifests.read(v).sstables())
                        .extracting(SsTable::path)
                        .doesNotContain("..");
            }
        }
    }
}
