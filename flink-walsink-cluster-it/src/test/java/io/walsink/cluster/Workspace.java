package io.walsink.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * What a cluster test deploys and where it writes: a fresh {@code target/NAME} folder with the
 * tables, the job jar (the examples merged with the shaded connector) and the connector jar the
 * SQL client gets with {@code -j}.
 */
record Workspace(Path home, Path work, Path tables, Path jobJar, Path connectorJar) {

    /** Empties {@code target/NAME} and builds the job jar into it. */
    static Workspace create(String name) throws IOException {
        Path home = Path.of(System.getProperty("cluster.home"));
        Path connectorJar = existing(System.getProperty("connector.jar"));
        Path examplesJar = existing(System.getProperty("examples.jar"));
        Path work = home.getParent().resolve(name);
        deleteRecursively(work);
        Path tables = Files.createDirectories(work.resolve("tables"));
        Path jobJar = JobJar.build(connectorJar, examplesJar, work.resolve("walsink-job.jar"));
        return new Workspace(home, work, tables, jobJar, connectorJar);
    }

    /** Stops every process of the cluster and removes what they unpacked. */
    static void close(StandaloneCluster cluster) throws IOException {
        if (cluster != null) {
            cluster.close();
            // lance-core unpacks its 181 MB native library per classloader into the temp folders
            deleteRecursively(cluster.work().resolve("tmp"));
        }
    }

    private static Path existing(String path) {
        Path p = Path.of(path);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException(p + " is missing: build the connector and examples modules first");
        }
        return p;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
