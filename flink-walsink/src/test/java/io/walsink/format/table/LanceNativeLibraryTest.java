package io.walsink.format.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * lance-core's native library in JVMs of their own ({@link NativeLibraryProbe}), as a TaskManager
 * holds it: in two user-code classloaders (lance-core in each job's jar), or once on the class path
 * (lance-core in Flink's lib/). Each JVM gets an empty temp folder.
 */
class LanceNativeLibraryTest {
    private static final String PANIC = "AsyncScanner class not found";

    @TempDir
    Path dir;

    @Test
    void eachClassloaderExtractsACopyAndWalsinkRemovesTheLoadedOnes() throws Exception {
        // lance-core alone: one 180 MB copy per classloader, kept until the JVM exits.
        Result raw = probe("raw", 2, false);
        assertThat(raw.stdout).contains("copies in tmpdir: 2");

        Result walsink = probe("walsink", 2, false);
        assertThat(walsink.stdout).contains("copies in tmpdir: 0");
        // The unlinked libraries stay mapped: each classloader's native methods still work.
        assertThat(walsink.stdout.lines().filter(l -> l.equals("native call: bound")))
                .hasSize(2);
    }

    /**
     * lance-core 7.0.0's dispatcher thread looks its class up through the system classloader and
     * panics when lance-core is only in a user-code classloader (lance-format/lance#6577, fixed
     * after 7.0.0). walsink never uses what the dispatcher serves (AsyncScanner), and the library
     * works on; walsink logs a one-line explanation first. From the class path (lib/) there is no
     * panic and no explanation.
     */
    @Test
    void theDispatcherPanicsOnlyWhenLanceCoreIsNotOnTheClassPath() throws Exception {
        Result userCode = probe("walsink", 1, false);
        assertThat(userCode.stderr).contains(PANIC);
        assertThat(userCode.stdout).contains("native call: bound");
        // walsink explains it in one line before lance-core prints it (its WARN, on the probe's console)
        assertThat(userCode.stdout).contains(LanceNativeLibrary.DISPATCHER_PANIC);

        Result lib = probe("walsink", 0, true);
        assertThat(lib.stderr).doesNotContain(PANIC);
        assertThat(lib.stdout).doesNotContain(LanceNativeLibrary.DISPATCHER_PANIC);
        assertThat(lib.stdout).contains("copies in tmpdir: 0").contains("native call: bound");
    }

    private record Result(String stdout, String stderr) {}

    private Result probe(String mode, int loaders, boolean onClassPath) throws Exception {
        List<String> all = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        String probeClasses = Paths.get(NativeLibraryProbe.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        String library =
                all.stream().filter(e -> !e.equals(probeClasses)).collect(Collectors.joining(File.pathSeparator));
        Path tmp = Files.createDirectories(dir.resolve(mode + "-" + loaders + "-" + onClassPath));
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                onClassPath ? probeClasses + File.pathSeparator + library : probeClasses,
                NativeLibraryProbe.class.getName(),
                mode,
                Integer.toString(loaders),
                library));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("probe ended").isTrue();
        Result result = new Result(
                Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        System.out.println(command.subList(command.size() - 3, command.size() - 1) + " on class path " + onClassPath
                + ":\n" + result.stdout);
        assertThat(process.exitValue()).as(result.stderr).isZero();
        return result;
    }
}
