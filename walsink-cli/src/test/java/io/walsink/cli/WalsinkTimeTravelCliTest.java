package io.walsink.cli;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.cli.WalsinkCliTest.Run;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BaseVersions;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scan --version/--tag/--timestamp}, {@code tag create|list|delete} and {@code rollback} on a
 * table compacted once.
 */
class WalsinkTimeTravelCliTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private static RowOp put(long id, String name) {
        return RowOp.put(row("id", id, "name", name, "score", null));
    }

    /** Base rows 1 and 2, then generation 1 (2 and 3) published and not merged; returns the table's path. */
    private String tableWithAGeneration() {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, WalsinkCliTest.TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        MemWalTable table = new MemWalTable(
                uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocators.allocator());
        table.writeBase(List.of(put(1, "base"), put(2, "base")));
        MemWalTable.Shard shard = table.shard();
        shard.flush(List.of(put(2, "gen1"), put(3, "gen1")), 4);
        shard.publish();
        return uri;
    }

    @Test
    void scanReadsAVersionByNumberTagOrTimeAndTagsSayWhatTheyDid() {
        String uri = tableWithAGeneration();
        List<String> before = List.of("id,name", "1,base", "2,base");
        List<String> after = List.of("id,name", "1,base", "2,gen1", "3,gen1");

        Run created = WalsinkCliTest.run("tag", "create", uri, "before");
        assertThat(created.code()).as(created.err()).isZero();
        long version = BaseVersions.latest(uri);
        assertThat(created.out()).isEqualTo("Tagged version " + version + " of " + uri + " as 'before'\n");
        Instant atBefore = BaseVersions.readableAt(uri, version);
        assertThat(WalsinkCliTest.run("compact", uri).code()).isZero();
        assertThat(BaseVersions.latest(uri)).as("the compaction committed").isGreaterThan(version);
        assertThat(atBefore).as("the next version came later").isBefore(BaseVersions.committed(uri, version + 1));

        assertThat(scan(uri, "--version", Long.toString(version))).isEqualTo(before);
        assertThat(scan(uri, "--tag", "before")).isEqualTo(before);
        assertThat(scan(uri, "--timestamp", atBefore.toString())).isEqualTo(before);
        assertThat(scan(uri, "--timestamp", Long.toString(atBefore.toEpochMilli())))
                .isEqualTo(before);
        assertThat(scan(uri, "--timestamp", Long.toString(System.currentTimeMillis())))
                .isEqualTo(after);
        assertThat(scan(uri)).isEqualTo(after);

        Run second = WalsinkCliTest.run("tag", "create", uri, "after", "--version", Long.toString(version + 1));
        assertThat(second.out()).isEqualTo("Tagged version " + (version + 1) + " of " + uri + " as 'after'\n");
        assertThat(WalsinkCliTest.run("tag", "list", uri).out())
                .isEqualTo("after = version " + (version + 1) + "\nbefore = version " + version + "\n(2 tags)\n");
        Run again = WalsinkCliTest.run("tag", "create", uri, "before");
        assertThat(again.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(again.err()).contains("has a tag 'before' already, on version " + version);
        Run deleted = WalsinkCliTest.run("tag", "delete", uri, "before");
        assertThat(deleted.out()).isEqualTo("Deleted tag 'before' of " + uri + " (version " + version + ")\n");
        assertThat(WalsinkCliTest.run("tag", "list", uri).out())
                .isEqualTo("after = version " + (version + 1) + "\n(1 tag)\n");

        Run gone = WalsinkCliTest.run("scan", uri, "--tag", "before");
        assertThat(gone.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(gone.err()).contains("has no tag 'before'; its tags: [after]");
        Run early = WalsinkCliTest.run("scan", uri, "--timestamp", "2000-01-01T00:00:00Z");
        assertThat(early.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(early.err())
                .contains("has no base table version committed at or before")
                .contains("sink.gc.retention");
        Run missing = WalsinkCliTest.run("tag", "delete", uri, "before");
        assertThat(missing.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(missing.err()).contains("has no tag 'before'");
        Run noVersion = WalsinkCliTest.run("tag", "create", uri, "x", "--version", "999");
        assertThat(noVersion.err()).contains("has no base table version 999 to tag");
        assertThat(WalsinkCliTest.run("tag", "list", uri).out()).doesNotContain("x =");
    }

    @Test
    void badTimeTravelAndTagUsageExitsWithTwoNamingTheProblem() {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, WalsinkCliTest.TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        assertThat(WalsinkCliTest.run("scan", uri, "--version", "1", "--tag", "t")
                        .err())
                .contains("give one of --version, --tag and --timestamp, not --version and --tag");
        assertThat(WalsinkCliTest.run("scan", uri, "--version", "0").err()).contains("--version must be a positive");
        assertThat(WalsinkCliTest.run("scan", uri, "--tag", "t", "--mode", "latest")
                        .err())
                .contains("takes no --mode");
        assertThat(WalsinkCliTest.run("scan", uri, "--timestamp", "yesterday").err())
                .contains("--timestamp: 'yesterday' is neither epoch milliseconds nor an ISO-8601");
        assertThat(WalsinkCliTest.run("tag", "rename", uri).err()).contains("expected create, list or delete");
        assertThat(WalsinkCliTest.run("tag", "create", uri).err()).contains("tag create takes TABLE NAME");
        assertThat(WalsinkCliTest.run("tag", "list", uri, "--version", "1").err())
                .contains("--version is for tag create");
        Run help = WalsinkCliTest.run("tag", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).startsWith("Usage: walsink tag create");
        for (String[] bad :
                List.of(new String[] {"scan", uri, "--version", "0"}, new String[] {"tag", "create", uri})) {
            assertThat(WalsinkCliTest.run(bad).code()).isEqualTo(WalsinkCli.ERROR);
        }
    }

    @Test
    void rollbackMakesTheTableReadAsTheTaggedVersionAndSaysWhatItDid() {
        String uri = tableWithAGeneration();
        assertThat(WalsinkCliTest.run("tag", "create", uri, "before").code()).isZero();
        long version = BaseVersions.latest(uri);
        assertThat(WalsinkCliTest.run("compact", uri).code()).isZero();
        assertThat(scan(uri)).containsExactly("id,name", "1,base", "2,gen1", "3,gen1");

        Run both = WalsinkCliTest.run("rollback", uri, "--tag", "before", "--version", "1");
        assertThat(both.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(both.err()).contains("one of --version N and --tag NAME");
        Run missing = WalsinkCliTest.run("rollback", uri, "--version", "999");
        assertThat(missing.code()).isEqualTo(WalsinkCli.ERROR);
        assertThat(missing.err()).contains("has no base version 999");

        Run rolledBack = WalsinkCliTest.run("rollback", uri, "--tag", "before");
        assertThat(rolledBack.code()).as(rolledBack.err()).isZero();
        assertThat(rolledBack.out())
                .startsWith("Rolled back " + uri + " to version " + version + " as new base version ");
        assertThat(scan(uri)).containsExactly("id,name", "1,base", "2,base");
        assertThat(WalsinkCliTest.run("verify", uri).code())
                .as("the format invariants hold")
                .isZero();
    }

    private static List<String> scan(String uri, String... travel) {
        String[] args = new String[travel.length + 6];
        System.arraycopy(new String[] {"scan", uri, "--format", "csv", "--columns", "id,name"}, 0, args, 0, 6);
        System.arraycopy(travel, 0, args, 6, travel.length);
        Run run = WalsinkCliTest.run(args);
        assertThat(run.code()).as(run.err()).isZero();
        return run.out().lines().toList();
    }
}
