package io.walsink.table.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.testing.BucketShardWriters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;

/**
 * Random upserts and deletes of an {@code (id BIGINT, name STRING)} table, published by the shard
 * engine's writers a generation per shard at a time, and what a continuous read must emit for
 * them: per key, its newest change of every generation, in order.
 */
public final class ChangeModel {
    private final BucketShardWriters writers;
    private final Random random;
    private final int keys;
    /** Per key, the changes a reader must emit, in order. */
    final Map<Long, List<String>> expected = new TreeMap<>();
    /** id -> name of live keys as published. */
    public final Map<Long, String> model = new TreeMap<>();

    private final Map<Long, String> pending = new TreeMap<>();
    private int round;

    public ChangeModel(BucketShardWriters writers, Random random, int keys) {
        this.writers = writers;
        this.random = random;
        this.keys = keys;
    }

    /**
     * {@code generations} rounds, each published as one generation per shard that has rows: a
     * quarter of the keys (at least {@link #changesPerRound} changes), then random others.
     */
    public void writeAndPublish(int generations) {
        for (int g = 0; g < generations; g++) {
            round++;
            List<Long> ids = new ArrayList<>(LongStream.range(0, keys).boxed().toList());
            Collections.shuffle(ids, random);
            List<Long> writes = new ArrayList<>(ids.subList(0, changesPerRound()));
            int extra = random.nextInt(keys);
            for (int i = 0; i < extra; i++) {
                writes.add((long) random.nextInt(keys));
            }
            for (int i = 0; i < writes.size(); i++) {
                long id = writes.get(i);
                boolean delete = random.nextInt(4) == 0;
                String name = "r" + round + "-" + i;
                writers.write(id, name, delete);
                pending.put(id, delete ? "-D " + id : "+U " + id + "=" + name);
                if (delete) {
                    model.remove(id);
                } else {
                    model.put(id, name);
                }
            }
            writers.publish();
            pending.forEach((id, change) ->
                    expected.computeIfAbsent(id, k -> new ArrayList<>()).add(change));
            pending.clear();
        }
    }

    /** The fewest changes a round brings: the distinct keys it writes first. */
    int changesPerRound() {
        return Math.max(1, keys / 4);
    }

    /** What a read starting now must emit first: every live key as an insert, nothing before. */
    void snapshotIsExpected() {
        expected.clear();
        model.forEach((id, name) ->
                expected.computeIfAbsent(id, k -> new ArrayList<>()).add("+I " + id + "=" + name));
    }

    /** Nothing published so far is expected (a read starting now with startup mode latest). */
    void nothingIsExpected() {
        expected.clear();
    }

    int expectedChanges() {
        return expected.values().stream().mapToInt(List::size).sum();
    }

    /** Per key, exactly the expected changes in order: none twice, none missing, none out of order. */
    void assertEmitted(List<String> emitted) {
        Map<Long, List<String>> perKey = new TreeMap<>();
        for (String change : emitted) {
            long id = Long.parseLong(change.substring(3).split("=")[0]);
            perKey.computeIfAbsent(id, k -> new ArrayList<>()).add(change);
        }
        assertThat(perKey).isEqualTo(expected);
        Map<Long, String> applied = applied(emitted);
        if (expected.values().stream().flatMap(List::stream).anyMatch(c -> c.startsWith("+I"))) {
            assertThat(applied).as("the changelog applied to a map").isEqualTo(model);
        }
    }

    /**
     * Changes ("+I 3=a", "+U 3=b", "-D 3", a delete may name a value too) applied in order to an
     * empty map: id -> name of the live keys.
     */
    public static Map<Long, String> applied(List<String> changes) {
        Map<Long, String> table = new TreeMap<>();
        for (String change : changes) {
            String[] kv = change.substring(3).split("=");
            if (change.startsWith("-D")) {
                table.remove(Long.parseLong(kv[0]));
            } else {
                table.put(Long.parseLong(kv[0]), kv[1]);
            }
        }
        return table;
    }
}
