package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.ChangeGenerator;
import io.walsink.table.stream.ChangeModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.types.Row;

/**
 * The changelog a continuous read emitted for a table written with {@link ChangeGenerator}'s
 * changes ({@code (id, "v" + i)}, deletes carrying their own {@code "v" + i}), checked against
 * the writer's history: since a version names the change that wrote it, a change emitted twice
 * or out of order shows as a version per key that does not increase.
 */
final class VersionedChangelog {
    private final ChangeGenerator writer;
    private final List<String> changes = new ArrayList<>();

    VersionedChangelog(ChangeGenerator writer) {
        this.writer = writer;
    }

    /** "+I 17=v23", "+U 17=v40", "-D 17=v52". */
    static String describe(Row row) {
        return row.getKind().shortString() + " " + row.getField(0) + "=" + row.getField(1);
    }

    synchronized void add(String change) {
        changes.add(change);
    }

    synchronized int size() {
        return changes.size();
    }

    /** The emitted changes applied in order to an empty map: id -> name of the live keys. */
    synchronized Map<Long, String> applied() {
        return ChangeModel.applied(changes);
    }

    /**
     * Every emitted change is one the writer made to that key, of the same kind (+I and +U
     * upserts, -D deletes), and per key the versions strictly increase: no change twice, none
     * out of order.
     */
    synchronized void assertInOrderOncePerKey(Object seed) {
        Map<Long, Long> last = new TreeMap<>();
        for (String change : changes) {
            assertThat(change.substring(0, 2))
                    .as("an upsert changelog: +I, +U, -D, seed %s", seed)
                    .isIn("+I", "+U", "-D");
            String[] kv = change.substring(3).split("=");
            long id = Long.parseLong(kv[0]);
            assertThat(kv[1])
                    .as("%s carries its version, seed %s", change, seed)
                    .startsWith("v");
            long version = Long.parseLong(kv[1].substring(1));
            assertThat(writer.keyOf(version))
                    .as("%s is a change the writer made to key %s, seed %s", change, id, seed)
                    .isEqualTo(id);
            assertThat(change.startsWith("-D"))
                    .as("%s has the kind of the writer's change, seed %s", change, seed)
                    .isEqualTo(writer.isDelete(version));
            Long before = last.put(id, version);
            assertThat(before == null || before < version)
                    .as(
                            "key %s: %s after version %s (a change twice or out of order), seed %s",
                            id, change, before, seed)
                    .isTrue();
        }
        assertThat(changes.stream().filter(c -> c.startsWith("+I")))
                .as("the snapshot comes as +I, seed %s", seed)
                .isNotEmpty();
        assertThat(changes.stream().filter(c -> c.startsWith("-D")))
                .as("deletes come as -D, seed %s", seed)
                .isNotEmpty();
    }
}
