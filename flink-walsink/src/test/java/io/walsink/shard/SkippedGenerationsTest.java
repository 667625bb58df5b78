package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.SsTable;
import io.walsink.storage.InMemoryObjectStore;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The passed-over records: only numbers above the merge progress are recorded, a record the
 * progress has passed is forgotten at the next claim, and an SSTable inside a range is found.
 */
class SkippedGenerationsTest {
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final SkippedGenerations skipped = new SkippedGenerations(store);
    private final UUID shard = UUID.fromString("4a388480-a25b-59a8-b058-24217f980256");

    @Test
    void aClaimRecordsTheNumbersAboveTheMergeProgressItPassedOver() {
        skipped.claimed(shard, 3, 7, 4);
        assertThat(skipped.read(shard)).containsExactly(new SkippedGenerations.Range(5, 7));
        skipped.claimed(shard, 9, 8, 4); // passed over nothing
        assertThat(skipped.read(shard)).hasSize(1);
        skipped.claimed(shard, 2, 3, 4); // all at or below the progress: never merged again
        assertThat(skipped.read(shard)).hasSize(1);
    }

    @Test
    void recordsTheProgressPassedAreForgottenAtTheNextClaim() {
        skipped.claimed(shard, 2, 3, 0);
        skipped.claimed(shard, 6, 6, 0);
        skipped.claimed(shard, 10, 12, 5);
        assertThat(skipped.read(shard))
                .containsExactlyInAnyOrder(new SkippedGenerations.Range(6, 6), new SkippedGenerations.Range(10, 12));
    }

    @Test
    void anSsTableInsideARangeIsFoundAndTemporaryFilesAreIgnored() {
        skipped.claimed(shard, 4, 5, 0);
        store.put(TableLayout.skippedGenerationsFolder(shard) + ".tmp-123", new byte[0]);
        List<SkippedGenerations.Range> ranges = skipped.read(shard);
        assertThat(SkippedGenerations.anySkipped(ranges, List.of(SsTable.of(3, "0000000a_gen_3"))))
                .isFalse();
        assertThat(SkippedGenerations.anySkipped(
                        ranges, List.of(SsTable.of(3, "0000000a_gen_3"), SsTable.of(5, "0000000b_gen_5"))))
                .isTrue();
        assertThat(SkippedGenerations.anySkipped(ranges, List.of(SsTable.of(6, "0000000c_gen_6"))))
                .isFalse();
    }
}
