package io.walsink.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link ObjectStore} implementation must have; one subclass per implementation. */
abstract class ObjectStoreContractTest {
    protected ObjectStore store;

    /** A fresh, empty store for one test. */
    protected abstract ObjectStore createStore() throws Exception;

    /** Keys written by the paging test; page size is a tenth of it, so listing needs several pages. */
    protected int listingKeyCount() {
        return 2_500;
    }

    /** Whether concurrent put-if-absent calls are atomic (s3mock's check is not). */
    protected boolean putIfAbsentIsAtomic() {
        return true;
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void putIfAbsentOnExistingKeyFailsAndKeepsContent() {
        store.putIfAbsent("wal/entry.arrow", bytes("first"));

        assertThatThrownBy(() -> store.putIfAbsent("wal/entry.arrow", bytes("second")))
                .isInstanceOf(ObjectAlreadyExistsException.class)
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isFalse())
                .hasMessageContaining("wal/entry.arrow");
        assertThat(store.get("wal/entry.arrow")).isEqualTo(bytes("first"));
    }

    @Test
    void getAndHeadReturnWhatWasWritten() {
        store.putIfAbsent("a/b/c/object.bin", bytes("hello world"));

        assertThat(store.get("a/b/c/object.bin")).isEqualTo(bytes("hello world"));
        assertThat(store.head("a/b/c/object.bin"))
                .get()
                .extracting(ObjectMeta::key, ObjectMeta::size)
                .containsExactly("a/b/c/object.bin", 11L);
        assertThat(store.exists("a/b/c/object.bin")).isTrue();
    }

    @Test
    void emptyObjectRoundTrips() {
        store.putIfAbsent("empty", new byte[0]);

        assertThat(store.get("empty")).isEmpty();
        assertThat(store.head("empty")).get().extracting(ObjectMeta::size).isEqualTo(0L);
    }

    @Test
    void missingKeyIsNotFound() {
        assertThatThrownBy(() -> store.get("missing/key"))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining("missing/key");
        assertThatThrownBy(() -> store.getRange("missing/key", 0, 10)).isInstanceOf(ObjectNotFoundException.class);
        assertThat(store.head("missing/key")).isEmpty();
        assertThat(store.exists("missing/key")).isFalse();
    }

    @Test
    void putReplacesExistingObject() {
        store.put("manifest/version_hint.json", bytes("{\"version\":1}"));
        store.put("manifest/version_hint.json", bytes("{\"version\":22}"));

        assertThat(store.get("manifest/version_hint.json")).isEqualTo(bytes("{\"version\":22}"));
    }

    @Test
    void rangesReturnTheRequestedBytesAndStopAtTheEnd() {
        store.putIfAbsent("range", bytes("0123456789"));

        assertThat(store.getRange("range", 3, 4)).isEqualTo(bytes("3456"));
        assertThat(store.getRange("range", 0, 10)).isEqualTo(bytes("0123456789"));
        assertThat(store.getRange("range", 7, 100)).isEqualTo(bytes("789"));
        assertThat(store.getRange("range", 10, 5)).isEmpty();
        assertThat(store.getRange("range", 50, 5)).isEmpty();
        assertThat(store.getRange("range", 2, 0)).isEmpty();
    }

    @Test
    void listingFollowsContinuationsToEveryKeyInOrder() {
        int count = listingKeyCount();
        int pageSize = count / 10;
        List<String> expected = IntStream.range(0, count)
                .mapToObj(i -> String.format("wal/%05d.arrow", i))
                .toList();
        writeAll(expected);

        List<String> listed = new ArrayList<>();
        int pages = 0;
        String continuation = null;
        do {
            ListPage page = store.list("wal/", continuation, pageSize);
            assertThat(page.objects()).hasSizeLessThanOrEqualTo(pageSize);
            page.objects().forEach(meta -> listed.add(meta.key()));
            continuation = page.continuation();
            pages++;
        } while (continuation != null && pages <= count);

        assertThat(listed).containsExactlyElementsOf(expected);
        assertThat(pages).isBetween(10, 11); // the last full page may or may not announce an empty one
        assertThat(store.listAll("wal/")).extracting(ObjectMeta::key).containsExactlyElementsOf(expected);
    }

    /**
     * Keys in nested folders whose names sort around the separator ('-' and '.' before '/', '0'
     * after): every page size gives every key once, in key order.
     */
    @Test
    void pagesFollowKeyOrderAcrossNestedFolders() {
        List<String> keys =
                List.of("t/a-b", "t/a.c", "t/a/x", "t/a/y/z", "t/a/y-z", "t/a0", "t/b/c/d", "t/b/c-d", "t/b0/e");
        writeAll(keys);
        List<String> expected = keys.stream().sorted().toList();

        for (int pageSize = 1; pageSize <= keys.size() + 1; pageSize++) {
            List<String> listed = new ArrayList<>();
            String continuation = null;
            int pages = 0;
            do {
                ListPage page = store.list("t/", continuation, pageSize);
                assertThat(page.objects()).hasSizeLessThanOrEqualTo(pageSize);
                page.objects().forEach(meta -> listed.add(meta.key()));
                continuation = page.continuation();
                pages++;
            } while (continuation != null && pages <= keys.size() + 1);
            assertThat(listed).as("pages of %s", pageSize).containsExactlyElementsOf(expected);
        }
        assertThat(keys(store.listAll("t/a"))).containsExactly("t/a-b", "t/a.c", "t/a/x", "t/a/y-z", "t/a/y/z", "t/a0");
        assertThat(keys(store.listAll("t/a/y"))).containsExactly("t/a/y-z", "t/a/y/z");
    }

    @Test
    void listingReportsSizes() {
        store.putIfAbsent("sized/one", bytes("1"));
        store.putIfAbsent("sized/three", bytes("333"));

        assertThat(store.listAll("sized/"))
                .extracting(ObjectMeta::key, ObjectMeta::size)
                .containsExactly(tuple("sized/one", 1L), tuple("sized/three", 3L));
    }

    /** How far a store's modification times may be from the caller's clock (S3 has one-second resolution). */
    protected Duration lastModifiedTolerance() {
        return Duration.ofSeconds(2);
    }

    /** The clock the store stamps writes with, as the caller sees it. */
    protected Instant now() {
        return Instant.now();
    }

    @Test
    void headAndListingReportWhenTheObjectWasWritten() {
        Instant before = now().minus(lastModifiedTolerance());
        store.putIfAbsent("timed/one", bytes("1"));
        store.put("timed/hint", bytes("h"));
        Instant after = now().plus(lastModifiedTolerance());

        for (String key : List.of("timed/one", "timed/hint")) {
            Instant headed = store.head(key).orElseThrow().lastModified();
            assertThat(headed).as(key).isBetween(before, after);
            Instant listed = store.listAll(key).get(0).lastModified();
            // S3 lists milliseconds but HEAD answers whole seconds
            assertThat(Duration.between(headed, listed).abs()).as(key).isLessThan(Duration.ofSeconds(1));
        }
    }

    @Test
    void replacingAnObjectMovesItsModificationTime() {
        assumeTrue(
                lastModifiedResolution().compareTo(Duration.ofMillis(10)) <= 0,
                "the store's times are too coarse to see a replacement without waiting");
        store.put("timed/hint", bytes("old"));
        Instant first = store.head("timed/hint").orElseThrow().lastModified();
        advancePast(first);
        store.put("timed/hint", bytes("new"));

        assertThat(store.head("timed/hint").orElseThrow().lastModified()).isAfter(first);
    }

    /**
     * Makes the store's next write carry a later time than {@code written}: a real clock is
     * waited for (at most the resolution, a few milliseconds at most); a simulated one is advanced.
     */
    protected void advancePast(Instant written) {
        Instant target = written.plusMillis(1);
        while (!now().isAfter(target.plus(lastModifiedResolution()))) {
            Thread.onSpinWait();
        }
    }

    /** The granularity of the store's modification times. */
    protected Duration lastModifiedResolution() {
        return Duration.ZERO;
    }

    @Test
    void listingFiltersByPrefix() {
        writeAll(List.of("wal/1.arrow", "wal/2.arrow", "walrus", "manifest/1.binpb", "a/wal/3.arrow"));

        assertThat(keys(store.listAll("wal/"))).containsExactly("wal/1.arrow", "wal/2.arrow");
        assertThat(keys(store.listAll("wal"))).containsExactly("wal/1.arrow", "wal/2.arrow", "walrus");
        assertThat(keys(store.listAll("manifest/"))).containsExactly("manifest/1.binpb");
        assertThat(keys(store.listAll(""))).hasSize(5);
        assertThat(store.list("nothing/", null, 10)).isEqualTo(new ListPage(List.of(), null));
    }

    @Test
    void listFoldersNamesTheFoldersOneLevelDown() {
        writeAll(List.of("top/a/1", "top/a/b/2", "top/c/3", "top/d", "top/e/f/g/4", "other/x/1", "topless/y/1"));

        assertThat(store.listFolders("top/")).containsExactly("top/a/", "top/c/", "top/e/");
        assertThat(store.listFolders("top/e/")).containsExactly("top/e/f/");
        assertThat(store.listFolders("top/a/b/")).isEmpty();
        assertThat(store.listFolders("missing/")).isEmpty();
    }

    @Test
    void continuationResumesAfterThePreviousPage() {
        writeAll(List.of("p/a", "p/b", "p/c", "p/d", "p/e"));

        ListPage first = store.list("p/", null, 2);
        ListPage second = store.list("p/", first.continuation(), 2);
        ListPage third = store.list("p/", second.continuation(), 2);

        assertThat(keys(first.objects())).containsExactly("p/a", "p/b");
        assertThat(keys(second.objects())).containsExactly("p/c", "p/d");
        assertThat(keys(third.objects())).containsExactly("p/e");
        assertThat(first.continuation()).isNotNull();
        assertThat(third.continuation()).isNull();
    }

    @Test
    void deleteIsIdempotent() {
        store.putIfAbsent("doomed", bytes("x"));

        store.delete("doomed");
        store.delete("doomed");
        store.delete("never/existed");

        assertThat(store.head("doomed")).isEmpty();
        assertThat(store.listAll("")).isEmpty();
        store.putIfAbsent("doomed", bytes("again"));
        assertThat(store.get("doomed")).isEqualTo(bytes("again"));
    }

    @Test
    void racingPutIfAbsentHasExactlyOneWinner() throws Exception {
        assumeTrue(putIfAbsentIsAtomic(), "this store's put-if-absent is not atomic under concurrency");
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 50; round++) {
                String key = "race/" + round + "/entry.arrow";
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> outcomes = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    byte[] content = bytes("writer " + t + " ".repeat(t * 100));
                    outcomes.add(pool.submit(() -> {
                        start.await();
                        try {
                            store.putIfAbsent(key, content);
                            return true;
                        } catch (ObjectAlreadyExistsException lost) {
                            return false;
                        }
                    }));
                }
                start.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    if (outcomes.get(t).get()) {
                        winners.add(t);
                    }
                }
                assertThat(winners).as("winners of round %d", round).hasSize(1);
                int winner = winners.get(0);
                assertThat(store.get(key)).isEqualTo(bytes("writer " + winner + " ".repeat(winner * 100)));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void writeAll(List<String> keys) {
        for (String key : keys) {
            store.putIfAbsent(key, bytes(key));
        }
    }

    private static List<String> keys(List<ObjectMeta> objects) {
        return objects.stream().map(ObjectMeta::key).toList();
    }

    protected static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }
}
