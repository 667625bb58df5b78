package io.walsink.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * What a cluster test deploys and where it writes: a fresh {@code target/NAME} folder with the
 * tables, the job jar and the Flink distribution the cluster runs from. The shaded connector is
 * deployed one of the two ways docs/operations.md names: {@linkplain #create with each job} (merged
 * into the job jar, given to the SQL client with {@code -j}) or {@linkplain #createWithConnectorInLib
 * in Flink's lib/ folder} (the job jar holds only the job's classes, the SQL client gets no jar).
 */
record Workspace(Path home, Path work, Path tables, Path jobJar, Path connectorJar, boolean connectorInLib) {

    /** Empties {@code target/NAME} and builds the job jar, the examples merged with the connector, into it. */
    static Workspace create(String name) throws IOException {
        Path home = Path.of(System.getProperty("cluster.home"));
        Path connectorJar = existing(System.getProperty("connector.jar"));
        Path work = emptied(home, name);
        Path jobJar = JobJar.build(connectorJar, examplesJar(), work.resolve("walsink-job.jar"));
        return new Workspace(home, work, Files.createDirectories(work.resolve("tables")), jobJar, connectorJar, false);
    }

    /**
     * Empties {@code target/NAME} and lays out a distribution whose {@code lib/} holds the connector
     * beside Flink's jars (links to them) and whose {@code opt/} is Flink's; the job jar is the
     * examples alone, as a user builds it when the cluster provides the connector.
     */
    static Workspace createWithConnectorInLib(String name) throws IOException {
        Path flink = Path.of(System.getProperty("cluster.home"));
        Path connectorJar = existing(System.getProperty("connector.jar"));
        Path work = emptied(flink, name);
        Path home = work.resolve("flink");
        Path lib = Files.createDirectories(home.resolve("lib"));
        try (var jars = Files.list(flink.resolve("lib"))) {
            for (Path jar : jars.toList()) {
                Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar.toAbsolutePath());
            }
        }
        Files.copy(connectorJar, lib.resolve(connectorJar.getFileName()));
        Files.createSymbolicLink(home.resolve("opt"), flink.resolve("opt").toAbsolutePath());
        Path jobJar = Files.copy(examplesJar(), work.resolve("walsink-job.jar"));
        return new Workspace(home, work, Files.createDirectories(work.resolve("tables")), jobJar, connectorJar, true);
    }

    /** The jar the SQL client is given with {@code -j}; null when the cluster's lib/ holds the connector. */
    Path sqlClientJar() {
        return connectorInLib ? null : connectorJar;
    }

    private static Path emptied(Path home, String name) throws IOException {
        Path work = home.getParent().resolve(name);
        deleteRecursively(work);
        return Files.createDirectories(work);
    }

    private static Path examplesJar() {
        return existing(System.getProperty("examples.jar"));
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
