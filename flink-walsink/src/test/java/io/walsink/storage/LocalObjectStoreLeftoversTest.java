package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temporary files of killed writers are removed once older than the configured age; nothing else is. */
class LocalObjectStoreLeftoversTest {
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration AGE = Duration.ofMinutes(10);

    @TempDir
    Path root;

    private Path file(String relative, Instant modified) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {1});
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    @Test
    void onlyTemporaryFilesOlderThanTheAgeUnderThePrefixAreRemoved() throws IOException {
        LocalObjectStore store = new LocalObjectStore(root, AGE, Clock.fixed(NOW, ZoneOffset.UTC));
        Path old = file(
                "shard/manifest/" + TemporaryFileNames.next(), NOW.minus(AGE).minusSeconds(1));
        Path oldDeeper = file("shard/wal/" + TemporaryFileNames.next(), NOW.minus(Duration.ofDays(3)));
        Path young = file(
                "shard/manifest/" + TemporaryFileNames.next(), NOW.minus(AGE).plusSeconds(1));
        Path oldObject = file("shard/manifest/version_hint.json", NOW.minus(Duration.ofDays(3)));
        Path otherShard = file("other/manifest/" + TemporaryFileNames.next(), NOW.minus(Duration.ofDays(3)));

        assertThat(store.removeLeftovers("shard/")).isEqualTo(2);

        assertThat(old).doesNotExist();
        assertThat(oldDeeper).doesNotExist();
        assertThat(young).exists();
        assertThat(oldObject).exists();
        assertThat(otherShard).exists();
    }

    @Test
    void listingLeftoversShowsEveryTemporaryFileWithItsTimeAndDeleteRemovesIt() throws IOException {
        Instant old = NOW.minus(Duration.ofDays(3));
        Instant young = NOW.minusSeconds(5);
        String oldName = TemporaryFileNames.next();
        file("shard/wal/" + oldName, old);
        file("shard/manifest/" + TemporaryFileNames.next(), young);
        file("shard/manifest/version_hint.json", old);
        file("other/" + TemporaryFileNames.next(), old);
        try (ObjectStore store = ObjectStores.open(root.toString(), null)) {
            var leftovers = store.listLeftovers("shard/");

            assertThat(leftovers).extracting(ObjectMeta::lastModified).containsExactlyInAnyOrder(old, young);
            assertThat(leftovers).allSatisfy(m -> assertThat(m.size()).isEqualTo(1));
            String oldKey = "shard/wal/" + oldName;
            assertThat(leftovers).extracting(ObjectMeta::key).contains(oldKey);
            assertThat(store.listAll("shard/"))
                    .extracting(ObjectMeta::key)
                    .containsExactly("shard/manifest/version_hint.json");

            store.delete(oldKey);
            assertThat(root.resolve(oldKey)).doesNotExist();
            assertThat(store.listLeftovers("shard/")).hasSize(1);
            assertThat(store.listLeftovers("no/such/")).isEmpty();
        }
    }

    @Test
    void aMissingFolderHasNoLeftovers() {
        LocalObjectStore store = new LocalObjectStore(root, AGE, Clock.fixed(NOW, ZoneOffset.UTC));

        assertThat(store.removeLeftovers("no/such/folder/")).isZero();
    }

    @Test
    void theStoreAPathOpensForwardsTheCleanup() throws IOException {
        Path old = file(
                "shard/manifest/" + TemporaryFileNames.next(), Instant.now().minus(Duration.ofDays(1)));
        try (ObjectStore store = ObjectStores.open(root.toString(), null)) {
            assertThat(store).isInstanceOf(RetryingObjectStore.class);
            assertThat(store.removeLeftovers("shard/")).isEqualTo(1);
        }
        assertThat(old).doesNotExist();
    }
}
