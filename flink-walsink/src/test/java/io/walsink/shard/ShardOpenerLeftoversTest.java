package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.TemporaryFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer killed between "temporary file written" and "linked into place" leaves a
 * {@code .tmp-*.partial} file in {@code manifest/} or {@code wal/}. Listings never take one for
 * a version or an entry, and opening the shard removes those old enough to be abandoned, while a
 * fresh one (a live writer's put in progress) stays.
 */
class ShardOpenerLeftoversTest {
    @TempDir
    Path dir;

    private static Path temporary(Path folder, Instant modified) throws IOException {
        Path file = Files.write(Files.createDirectories(folder).resolve(TemporaryFileNames.next()), new byte[] {1});
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    @Test
    void abandonedTemporaryFilesAreIgnoredByListingsAndRemovedOnOpen() throws IOException {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter first = f.open();
            f.put(first, 1, "a");
            appendAllPending(first);
            first.close();
            Path shardFolder = f.tablePath.resolve(TableLayout.shardFolder(ShardFixture.SHARD));
            Instant now = Instant.now();
            Instant dayOld = now.minus(Duration.ofDays(1));
            Path staleManifest = temporary(shardFolder.resolve("manifest"), dayOld);
            Path staleWal = temporary(shardFolder.resolve("wal"), dayOld);
            Path fresh = temporary(shardFolder.resolve("manifest"), now);

            ManifestStore manifests = new ManifestStore(f.store.delegate(), ShardFixture.SHARD);
            assertThat(manifests.listVersions()).containsExactly(1L);
            assertThat(f.walPositions()).containsExactly(1L);
            assertThat(f.store.delegate().listAll(TableLayout.walFolder(ShardFixture.SHARD)))
                    .hasSize(1);

            f.open().close();

            assertThat(staleManifest).as("abandoned in manifest/").doesNotExist();
            assertThat(staleWal).as("abandoned in wal/").doesNotExist();
            assertThat(fresh).as("a live writer's put in progress").exists();
            assertThat(manifests.listVersions()).containsExactly(1L, 2L);
            assertThat(f.read(io.walsink.read.ReadMode.LATEST)).containsEntry(1L, "a");
        }
    }
}
