package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The model and the comparison that Q1Report's verification rests on. */
class Q1CheckTest {
    private static final Q1Rows MODEL = new Q1Rows(40, 10, 2, 7);

    @Test
    void everyRoundOfKeysConsecutiveChangesTouchesEveryKeyOnce() {
        for (long round = 0; round < 4; round++) {
            boolean[] seen = new boolean[10];
            for (long i = round * 10; i < round * 10 + 10; i++) {
                seen[(int) MODEL.keyOf(i)] = true;
                assertThat(MODEL.keyOf(i) % 2)
                        .as("a key's residue is its change's")
                        .isEqualTo(i % 2);
            }
            assertThat(seen).doesNotContain(false);
        }
    }

    @Test
    void theDataStreamIndexBlocksMapToTheSqlSubtasksResidues() {
        // Block 0 (indexes 0..19) is every even change in order, block 1 every odd one.
        assertThat(MODEL.changeOfIndex(0)).isZero();
        assertThat(MODEL.changeOfIndex(1)).isEqualTo(2);
        assertThat(MODEL.changeOfIndex(19)).isEqualTo(38);
        assertThat(MODEL.changeOfIndex(20)).isEqualTo(1);
        assertThat(MODEL.changeOfIndex(39)).isEqualTo(39);
    }

    @Test
    void aTableOfTheLastChangesMatches() {
        assertThat(Q1Check.compare(lastRows(), MODEL.lastChangePerKey()).matches())
                .isTrue();
    }

    @Test
    void aMissingKeyAStaleRowOrWrongColumnsDoNotMatch() {
        long[] last = MODEL.lastChangePerKey();

        List<long[]> dropped = lastRows();
        dropped.remove(3);
        assertThat(Q1Check.compare(dropped, last).missing()).isEqualTo(1);

        List<long[]> stale = lastRows();
        long[] r = stale.get(0);
        stale.set(0, new long[] {r[0], r[1] - 10, 1}); // the same key's previous change
        Q1Check.Outcome staleOutcome = Q1Check.compare(stale, last);
        assertThat(staleOutcome.stale()).isEqualTo(1);
        assertThat(staleOutcome.matches()).isFalse();

        List<long[]> wrong = lastRows();
        wrong.set(1, new long[] {wrong.get(1)[0], wrong.get(1)[1], 0});
        assertThat(Q1Check.compare(wrong, last).inconsistent()).isEqualTo(1);
        assertThat(Q1Check.compare(wrong, last).text()).startsWith("NO");
    }

    private static List<long[]> lastRows() {
        List<long[]> rows = new ArrayList<>();
        long[] last = MODEL.lastChangePerKey();
        for (int k = 0; k < last.length; k++) {
            rows.add(new long[] {k, last[k], 1});
        }
        return rows;
    }
}
