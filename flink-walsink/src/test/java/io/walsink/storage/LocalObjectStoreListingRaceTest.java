package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.BitReversedName;
import io.walsink.testing.RacingFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing of the local store while writers work next to it: entries that vanish between the
 * directory read and the look at them (a temporary file linked into place and removed, a folder
 * removed) are skipped, and every stable object is still listed, on every page. The races are
 * forced by {@link RacingFileSystem}, and each test asserts how often they fired.
 */
class LocalObjectStoreListingRaceTest {
    private static final String SHARD = "_mem_wal/5d1c8a2e-7b3f-4e0a-9c6d-1f2e3a4b5c6d/";

    @TempDir
    Path dir;

    private final RacingFileSystem fs = new RacingFileSystem();

    private LocalObjectStore racingStore() {
        return new LocalObjectStore(fs.wrap(dir));
    }

    /** Objects a writer never removes: manifests, WAL entries, SSTable files. */
    private List<String> writeStableObjects(int perFolder) {
        LocalObjectStore plain = new LocalObjectStore(dir);
        List<String> keys = new ArrayList<>();
        for (int i = 1; i <= perFolder; i++) {
            keys.add(SHARD + "manifest/" + BitReversedName.manifestName(i));
            keys.add(SHARD + "wal/" + BitReversedName.walEntryName(i));
            keys.add(SHARD + "0a0b0c0d_gen_1/data/part-" + i + ".lance");
        }
        for (String key : keys) {
            plain.putIfAbsent(key, new byte[] {1, 2, 3});
        }
        return keys.stream().sorted().toList();
    }

    private static Path temporaryIn(Path folder) throws IOException {
        return Files.write(Files.createDirectories(folder).resolve(TemporaryFileNames.next()), new byte[] {9});
    }

    @Test
    void aTemporaryFileRemovedAfterItsNameWasReadIsSkipped() throws IOException {
        List<String> stable = writeStableObjects(3);
        temporaryIn(dir.resolve(SHARD + "wal"));
        fs.whenListed(p -> TemporaryFileNames.isTemporary(p.getFileName().toString()), Files::delete);

        List<ObjectMeta> listed = racingStore().listAll("_mem_wal/");

        assertThat(listed).extracting(ObjectMeta::key).containsExactlyElementsOf(stable);
        assertThat(fs.fired()).as("the race fired").isEqualTo(1);
        assertThat(listed).extracting(ObjectMeta::size).containsOnly(3L);
    }

    @Test
    void foldersRemovedMidWalkAreSkipped() throws IOException {
        List<String> stable = writeStableObjects(3);
        // Seen by the parent's listing, gone before it is looked at.
        Path gone = Files.createDirectories(dir.resolve(SHARD + "ffff0000_gen_2/data"));
        Files.write(gone.resolve("half.lance"), new byte[] {1});
        // Looked at as a folder, gone before its own listing is opened.
        Path goneLater = Files.createDirectories(dir.resolve(SHARD + "eeee0000_gen_2/_versions"));
        Files.write(goneLater.resolve("1.manifest"), new byte[] {1});
        fs.whenListed(p -> p.equals(gone.getParent()), RacingFileSystem::removeTree)
                .whenOpened(p -> p.equals(goneLater.getParent()), RacingFileSystem::removeTree);

        List<ObjectMeta> listed = racingStore().listAll("_mem_wal/");

        assertThat(listed).extracting(ObjectMeta::key).containsExactlyElementsOf(stable);
        assertThat(fs.fired()).as("both races fired").isEqualTo(2);
    }

    @Test
    void everyPageHoldsEveryStableObjectWhileTemporaryFilesComeAndGo() throws IOException {
        List<String> stable = writeStableObjects(9);
        for (String folder : List.of("manifest", "wal", "0a0b0c0d_gen_1/data")) {
            temporaryIn(dir.resolve(SHARD + folder));
        }
        // Each temporary file vanishes when listed and a new one appears next to it, like a
        // writer putting object after object; bounded so a walk always ends.
        AtomicInteger budget = new AtomicInteger(500);
        fs.whenListed(p -> TemporaryFileNames.isTemporary(p.getFileName().toString()), p -> {
            Files.delete(p);
            if (budget.decrementAndGet() > 0) {
                temporaryIn(p.getParent());
            }
        });
        LocalObjectStore store = racingStore();

        List<String> listed = new ArrayList<>();
        String continuation = null;
        int pages = 0;
        do {
            int before = fs.fired();
            ListPage page = store.list("_mem_wal/", continuation, 4);
            assertThat(fs.fired()).as("page %d raced with a writer", pages + 1).isGreaterThan(before);
            page.objects().forEach(o -> listed.add(o.key()));
            continuation = page.continuation();
            pages++;
        } while (continuation != null);

        assertThat(listed).containsExactlyElementsOf(stable);
        assertThat(pages).isEqualTo(7); // 27 objects, 4 per page
        assertThat(budget.get())
                .as("the bound on new temporary files was not reached")
                .isPositive();
    }
}
