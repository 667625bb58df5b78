package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.storage.InMemoryObjectStore;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ManifestInvariantsTest {
    private static final UUID SHARD = UUID.randomUUID();

    @Test
    void healthyHistoryHasNoViolations() {
        assertThat(ManifestInvariants.violations(List.of(
                        m(1, 1, 1),
                        m(2, 1, 2).toBuilder()
                                .addSstable(SsTable.of(1, "a_gen_1"))
                                .build(),
                        m(3, 2, 2))))
                .isEmpty();
    }

    @Test
    void eachBrokenRuleIsReported() {
        assertThat(ManifestInvariants.violations(List.of(m(2, 1, 1))))
                .containsExactly("version 2 follows nothing, expected 1");
        assertThat(ManifestInvariants.violations(List.of(m(1, 1, 1), m(3, 1, 1))))
                .containsExactly("version 3 follows 1, expected 2");
        assertThat(ManifestInvariants.violations(List.of(m(1, 2, 1), m(2, 1, 1))))
                .containsExactly("version 1 -> 2: writer_epoch went back 2 -> 1");
        assertThat(ManifestInvariants.violations(List.of(m(1, 1, 3), m(2, 1, 2))))
                .containsExactly("version 1 -> 2: current_generation went back 3 -> 2");
        assertThat(ManifestInvariants.violations(List.of(
                        m(1, 1, 1).toBuilder().replayAfterWalEntryPosition(4).build(), m(2, 1, 1))))
                .containsExactly("version 1 -> 2: replay_after_wal_entry_position went back 4 -> 0");
        assertThat(ManifestInvariants.violations(
                        List.of(m(1, 1, 1), m(2, 1, 1).toBuilder().shardId(null).build())))
                .containsExactly("version 1 -> 2: shard_id changed " + SHARD + " -> null");
        assertThat(ManifestInvariants.violations(List.of(m(1, 1, 2).toBuilder()
                        .addSstable(SsTable.of(1, "a"))
                        .addSstable(SsTable.of(1, "b"))
                        .addSstable(SsTable.of(2, "c"))
                        .build())))
                .containsExactly(
                        "version 1: two sstables of generation 1",
                        "version 1: sstable c has generation 2, not below current_generation 2");
    }

    @Test
    void storeCheckFindsHolesAndUndecodableVersions() {
        InMemoryObjectStore objects = new InMemoryObjectStore();
        ManifestStore store = new ManifestStore(objects, SHARD);
        ShardManifest current = store.writeFirst(m(1, 1, 1));
        for (int i = 0; i < 3; i++) {
            current = store.writeNext(current, current);
        }
        assertThat(ManifestInvariants.check(store)).isEmpty();

        objects.delete(store.versionKey(2));
        objects.delete(store.versionKey(4));
        objects.putIfAbsent(store.versionKey(4), new byte[] {0x0a});

        List<String> problems = ManifestInvariants.check(store);
        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).startsWith("memory://" + store.versionKey(4));
        assertThat(problems.get(1)).isEqualTo("version 3 follows 1, expected 2");
        assertThatThrownBy(() -> ManifestInvariants.requireValid(store))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining("manifest invariants broken");
    }

    private static ShardManifest m(long version, long epoch, long generation) {
        return ShardManifest.builder()
                .version(version)
                .writerEpoch(epoch)
                .currentGeneration(generation)
                .shardId(SHARD)
                .build();
    }
}
