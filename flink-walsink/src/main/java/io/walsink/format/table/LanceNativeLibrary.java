package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * lance-core 7.0.0 loads its native library (about 180 MB) by copying it out of its jar into a new
 * temporary file ({@code liblance_jni<random>.so} in {@code java.io.tmpdir}) for every classloader
 * that loads it, and deletes the copy only when the JVM exits: a TaskManager that runs many jobs
 * with lance-core in their user-code classloaders fills its temp folder. Once the library is
 * loaded, the copy is no longer needed (on Linux an unlinked library stays mapped), so this removes
 * every copy this process has loaded. A copy another classloader is still writing is not mapped
 * yet and is left alone. Loading lance-core once per JVM (from Flink's {@code lib/}) avoids the
 * copies altogether; see docs/operations.md#native-library.
 */
@Internal
public final class LanceNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(LanceNativeLibrary.class);
    private static final Pattern COPY = Pattern.compile("liblance_jni\\d*\\.so");
    private static final Path MAPS = Paths.get("/proc/self/maps");
    private static volatile boolean done;
    private static final String ASYNC_SCANNER = "org.lance.ipc.AsyncScanner";
    /** The one-line explanation of what lance-core prints when it loads from a user-code classloader. */
    static final String DISPATCHER_PANIC = "lance-core is loaded from a classloader the JVM's system classloader"
            + " cannot see (a job jar, or the SQL client's -j): its 'lance-jni-dispatcher' thread will print"
            + " 'AsyncScanner class not found' and NoClassDefFoundError: org/lance/ipc/AsyncScanner on stderr. Harmless:"
            + " that thread serves only lance-core's asynchronous scanner, which walsink does not use"
            + " (lance-format/lance#6577); with the walsink jar in Flink's lib/ it does not happen";

    private static boolean visibleToTheSystemClassLoader(String name) {
        try {
            Class.forName(name, false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private LanceNativeLibrary() {}

    /** Loads lance-core's native library (if this classloader has not) and removes extracted copies. */
    public static void ensureLoaded() {
        if (done) {
            return;
        }
        synchronized (LanceNativeLibrary.class) {
            if (done) {
                return;
            }
            if (!visibleToTheSystemClassLoader(ASYNC_SCANNER)) {
                LOG.warn(DISPATCHER_PANIC);
            }
            org.lance.JniLoader.ensureLoaded();
            removeLoadedCopies();
            done = true;
        }
    }

    /** Deletes the extracted copies this process has mapped; returns how many it deleted. */
    static int removeLoadedCopies() {
        if (!Files.isReadable(MAPS)) {
            return 0; // not Linux: copies stay until the JVM exits
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(MAPS);
        } catch (IOException e) {
            LOG.debug("cannot read {}", MAPS, e);
            return 0;
        }
        Set<String> present = new TreeSet<>();
        Set<String> loaded = new TreeSet<>();
        for (String line : lines) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = line.substring(slash);
            boolean deleted = file.endsWith(" (deleted)");
            String path = deleted ? file.substring(0, file.length() - " (deleted)".length()) : file;
            Matcher m = COPY.matcher(Paths.get(path).getFileName().toString());
            if (!m.matches()) {
                continue;
            }
            loaded.add(path + (deleted ? " (deleted)" : ""));
            if (!deleted) {
                present.add(path);
            }
        }
        int removed = 0;
        for (String path : present) {
            try {
                if (Files.deleteIfExists(Paths.get(path))) {
                    removed++;
                }
            } catch (IOException | SecurityException e) {
                LOG.warn("cannot remove lance-core's extracted native library {}: {}", path, e.toString());
            }
        }
        if (removed > 0) {
            LOG.info("Removed {} extracted copies of lance-core's native library (mapped, no longer needed)", removed);
        }
        if (loaded.size() > 1) {
            LOG.warn(
                    "lance-core's native library is loaded {} times in this JVM (once per classloader holding"
                            + " lance-core, about 180 MB each): put the walsink jar in Flink's lib/ to load it once",
                    loaded.size());
        }
        return removed;
    }
}
