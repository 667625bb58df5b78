package io.walsink.cli;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.BitReversedName;
import io.walsink.format.TableLayout;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real entry point in its own JVM with the tool's own logging configuration, as {@code
 * ./walsink} runs it: exit codes through {@code System.exit}, and the progress of maintenance on
 * stderr.
 */
class WalsinkMainTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private record Run(int code, String out, String err) {}

    private static Run runMain(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                // the test classpath also holds the library's log4j2-test.properties, which would win
                "-Dlog4j2.configurationFile="
                        + Path.of("target", "classes", "log4j2.xml").toAbsolutePath(),
                "-cp",
                System.getProperty("java.class.path"),
                WalsinkCli.class.getName()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("walsink-out", ".txt");
        Path err = Files.createTempFile("walsink-err", ".txt");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES))
                .as("walsink %s ended", args[0])
                .isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static RowOp put(long id, String name, Integer score) {
        return RowOp.put(row("id", id, "name", name, "score", score));
    }

    @Test
    void theCommandExitsWithItsCodeAndShowsMaintenanceProgressOnStderr() throws Exception {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, WalsinkCliTest.TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocators.allocator());
        MemWalTable.Shard a = table.shard();
        a.flush(List.of(put(1, "a1", 1), put(2, "a1", 2)), 4);
        a.flush(List.of(put(2, "a2", 20)), 4);
        a.publish();
        a.walEntry(List.of(put(3, "w", 30)));

        assertThat(runMain("verify", uri).code()).isEqualTo(WalsinkCli.OK);
        assertThat(runMain("scan", uri, "--format", "yaml").code()).isEqualTo(WalsinkCli.ERROR);

        Run compact = runMain("compact", uri);
        assertThat(compact.code()).as(compact.err()).isEqualTo(WalsinkCli.OK);
        assertThat(compact.out()).contains("2 generations merged over 1 shards");
        assertThat(compact.err())
                .as("one progress line per generation merged")
                .contains("Shard " + a.id() + ": merged generation 1 ")
                .contains("Shard " + a.id() + ": merged generation 2 ");

        store.delete(TableLayout.walFolder(a.id()) + BitReversedName.walEntryName(2));
        Run damaged = runMain("verify", uri);
        assertThat(damaged.code()).isEqualTo(WalsinkCli.PROBLEMS_FOUND);
        assertThat(damaged.out()).contains("WAL gap: position 2");
    }
}
