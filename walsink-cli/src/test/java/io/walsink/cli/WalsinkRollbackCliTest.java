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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code walsink rollback --tag/--version}: the table reads as the version again, and says what it did. */
class WalsinkRollbackCliTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    @Test
    void rollbackMakesTheTableReadAsTheTaggedVersion() {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, WalsinkCliTest.TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        MemWalTable table = new MemWalTable(
                uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocators.allocator());
        table.writeBase(List.of(put(1, "base"), put(2, "base")));
        MemWalTable.Shard shard = table.shard();
        shard.flush(List.of(put(2, "gen1"), put(3, "gen1")), 4);
        shard.publish();
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

    private static RowOp put(long id, String name) {
        return RowOp.put(row("id", id, "name", name, "score", null));
    }

    private static List<String> scan(String uri) {
        Run scan = WalsinkCliTest.run("scan", uri, "--columns", "id,name", "--format", "csv");
        assertThat(scan.code()).as(scan.err()).isZero();
        return Arrays.asList(scan.out().split("\n"));
    }
}
