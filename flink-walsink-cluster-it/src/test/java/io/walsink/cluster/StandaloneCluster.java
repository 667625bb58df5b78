package io.walsink.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Flink 2.3 standalone session cluster as a distribution starts it, from the jars Maven copied to
 * {@code target/flink/lib} and {@code opt}: {@code StandaloneSessionClusterEntrypoint} and
 * {@code TaskManagerRunner} as separate JVMs, memory flags from Flink's {@code BashJavaUtils} (what
 * {@code bin/taskmanager.sh} does), free ports, logs and temp files under {@code target/cluster}.
 * Every process started here is killed by {@link #close} and, should the test JVM die first, by a
 * shutdown hook.
 */
final class StandaloneCluster implements AutoCloseable {
    /**
     * The memory settings of Flink 2.x's distribution config.yaml, and nothing else: no task
     * off-heap memory (Flink's default, 0), managed memory at Flink's default fraction (0.4 of the
     * 1280 MiB of Flink memory a 1728m process has: 512 MiB, 256 MiB per slot). The writers size
     * themselves from their slot's managed memory (docs/configuration.md#memory).
     */
    static final String JOB_MANAGER_PROCESS = "1600m";

    static final String TASK_MANAGER_PROCESS = "1728m";

    /**
     * Two slots rather than the distribution's one: each writer's share of managed memory is then
     * half of it, a harder case than the default.
     */
    static final int SLOTS = 2;

    /**
     * Managed memory per slot with these settings, about 0.4 x (1728 - 256 metaspace - 192 overhead)
     * MiB / 2 (Flink's arithmetic gives a few bytes more).
     */
    static final long SLOT_MANAGED = 256L << 20;

    /**
     * The {@code env.java.opts.all} of Flink 2.x's distribution config.yaml (Flink itself needs
     * these module openings on Java 17; java.nio is also the one Arrow needs).
     */
    static final String FLINK_JVM_FLAGS = "--add-exports=java.base/sun.net.util=ALL-UNNAMED"
            + " --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED"
            + " --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED"
            + " --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED"
            + " --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED"
            + " --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED"
            + " --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED"
            + " --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
            + " --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
            + " --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED"
            + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED"
            + " --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED"
            + " --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED"
            + " --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED"
            + " --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED";

    private final Path lib;
    private final Path opt;
    private final Path work;
    private final Path conf;
    private final Path logs;
    private final int restPort;
    private final Rest rest;
    private final List<String> extraConfig;
    private final List<Process> processes = new ArrayList<>();
    private final Thread reaper = new Thread(this::killAll, "kill-flink-cluster");
    private int taskManagersStarted;

    /** A registered TaskManager: its resource id (as REST names it) and its JVM. */
    record TaskManager(String id, Process process) {}

    StandaloneCluster(Path home, Path work) throws IOException {
        this(home, work, List.of());
    }

    /** {@code extraConfig}: config.yaml lines added to the test's own. */
    StandaloneCluster(Path home, Path work, List<String> extraConfig) throws IOException {
        this.extraConfig = List.copyOf(extraConfig);
        this.lib = home.resolve("lib");
        this.opt = home.resolve("opt");
        this.work = work;
        this.conf = Files.createDirectories(work.resolve("conf"));
        this.logs = Files.createDirectories(work.resolve("log"));
        Files.createDirectories(work.resolve("tmp"));
        if (!Files.isDirectory(lib) || !Files.isDirectory(opt)) {
            throw new IllegalStateException(home + " has no lib/ and opt/: run with -Pcluster-it");
        }
        this.restPort = freePort();
        this.rest = new Rest(restPort);
        writeConfiguration(freePort());
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    Rest rest() {
        return rest;
    }

    Path logs() {
        return logs;
    }

    Path work() {
        return work;
    }

    void startJobManager() throws IOException {
        List<String> memory = flinkResourceParams("GET_JM_RESOURCE_PARAMS");
        start(
                "jobmanager",
                memory.get(0),
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                memory.get(1));
        Poll.until(Duration.ofSeconds(90), "the JobManager's REST API", () -> rest.get("/overview"), o -> true);
    }

    /** Starts one more TaskManager and waits until the JobManager has registered it. */
    TaskManager startTaskManager() throws IOException {
        Set<String> before = taskManagerIds();
        List<String> memory = flinkResourceParams("GET_TM_RESOURCE_PARAMS");
        Process tm = start(
                "taskmanager-" + (++taskManagersStarted),
                memory.get(0),
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                memory.get(1));
        Set<String> added = Poll.until(
                Duration.ofSeconds(90),
                "a new TaskManager to register",
                () -> {
                    Set<String> ids = taskManagerIds();
                    ids.removeAll(before);
                    return ids;
                },
                ids -> !ids.isEmpty());
        return new TaskManager(added.iterator().next(), tm);
    }

    Set<String> taskManagerIds() throws IOException {
        Set<String> ids = new HashSet<>();
        for (JsonNode tm : rest.get("/taskmanagers").get("taskmanagers")) {
            ids.add(tm.get("id").asText());
        }
        return ids;
    }

    /** The one registered TaskManager's id; fails if there is not exactly one. */
    String onlyTaskManager() throws IOException {
        Set<String> ids = taskManagerIds();
        if (ids.size() != 1) {
            throw new AssertionError("expected one TaskManager, the JobManager lists " + ids);
        }
        return ids.iterator().next();
    }

    /** {@code kill -9}: no shutdown hook, no goodbye to the JobManager. */
    void killNine(Process process) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0 || !process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("kill -9 " + process.pid() + " did not end the process");
        }
    }

    /** A full GC in that JVM ({@code jcmd PID GC.run}): direct buffers are freed when collected. */
    void collectGarbage(Process process) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.run")
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve("jcmd.out").toFile())
                .start();
        if (!gc.waitFor(60, TimeUnit.SECONDS) || gc.exitValue() != 0) {
            throw new AssertionError("jcmd " + process.pid() + " GC.run failed; see " + logs.resolve("jcmd.out"));
        }
    }

    /**
     * Starts a client JVM (CliFrontend, SqlClient) on this cluster's configuration; its stdout and
     * stderr go to {@code log/NAME.out}.
     */
    Process startClient(String name, boolean sqlClient, String mainClass, List<String> args) throws IOException {
        List<String> command = java(name, sqlClient ? lib + "/*:" + opt + "/*" : lib + "/*", "log4j-cli.properties");
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        builder.environment().put("FLINK_LIB_DIR", lib.toString());
        builder.environment().put("FLINK_OPT_DIR", opt.toString());
        s3Credentials(builder);
        return track(builder.start());
    }

    String output(String name) throws IOException {
        return Files.readString(logs.resolve(name + ".out"), StandardCharsets.UTF_8);
    }

    /** Every TaskManager's log so far, one after the other. */
    String taskManagerLogs() throws IOException {
        StringBuilder all = new StringBuilder();
        for (int i = 1; i <= taskManagersStarted; i++) {
            Path log = logs.resolve("taskmanager-" + i + ".log");
            if (Files.exists(log)) {
                all.append(Files.readString(log, StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private synchronized void killAll() {
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** glibc keeping what lance-core frees, as operations.md sets it for a TaskManager. */
    private static final Map<String, String> GLIBC_KEEPS_FREED_MEMORY = Map.of(
            "MALLOC_MMAP_THRESHOLD_",
            "33554432",
            "MALLOC_TRIM_THRESHOLD_",
            "1073741824",
            "MALLOC_TOP_PAD_",
            "67108864",
            "MALLOC_ARENA_MAX",
            "2");

    private Process start(String name, String jvmParams, String mainClass, String dynamicConfig) throws IOException {
        List<String> command = java(name, lib + "/*", "log4j.properties");
        command.addAll(Arrays.asList(jvmParams.trim().split("\\s+")));
        command.add(mainClass);
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(Arrays.asList(dynamicConfig.trim().split("\\s+")));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        if (mainClass.endsWith("TaskManagerRunner")) {
            builder.environment().putAll(GLIBC_KEEPS_FREED_MEMORY); // operations.md, "Native memory"
        }
        s3Credentials(builder);
        return track(builder.start());
    }

    /** Dummy keys for s3mock, which checks none, through the AWS default chain as in production. */
    private static void s3Credentials(ProcessBuilder builder) {
        builder.environment().put("AWS_ACCESS_KEY_ID", "walsink-test-key");
        builder.environment().put("AWS_SECRET_ACCESS_KEY", "walsink-test-secret");
    }

    private List<String> java(String name, String classpath, String logConfig) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(FLINK_JVM_FLAGS.split(" ")));
        command.add("-Djava.io.tmpdir="
                + Files.createDirectories(work.resolve("tmp").resolve(name)));
        command.add("-Dlog.file=" + logs.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve(logConfig).toUri());
        command.add("-cp");
        command.add(classpath);
        return command;
    }

    private synchronized Process track(Process p) {
        processes.add(p);
        return p;
    }

    /** Flink's own memory calculation: JVM flags and the dynamic configuration that goes with them. */
    private List<String> flinkResourceParams(String command) throws IOException {
        Path out = logs.resolve(command + ".out");
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        lib + "/*",
                        "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        command,
                        "--configDir",
                        conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("BashJavaUtils " + command + " failed: " + Files.readString(out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        List<String> results = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            if (line.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:")) {
                results.add(line.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length()));
            }
        }
        if (results.size() < 2) {
            throw new IllegalStateException(
                    "BashJavaUtils " + command + " printed no results: " + Files.readString(out));
        }
        return results.subList(results.size() - 2, results.size());
    }

    private void writeConfiguration(int rpcPort) throws IOException {
        String config = String.join(
                "\n",
                "jobmanager.rpc.address: localhost",
                "jobmanager.rpc.port: " + rpcPort,
                "jobmanager.bind-host: localhost",
                "rest.address: localhost",
                "rest.bind-address: localhost",
                "rest.port: " + restPort,
                "taskmanager.host: localhost",
                "taskmanager.bind-host: localhost",
                // Flink's default memory configuration: only the distribution's process sizes
                "jobmanager.memory.process.size: " + JOB_MANAGER_PROCESS,
                "taskmanager.memory.process.size: " + TASK_MANAGER_PROCESS,
                "taskmanager.numberOfTaskSlots: " + SLOTS,
                "parallelism.default: 1",
                // what bin/*.sh pass to every JVM; the test starts the JVMs with the same flags
                "env.java.opts.all: " + FLINK_JVM_FLAGS,
                "restart-strategy.type: fixed-delay",
                "restart-strategy.fixed-delay.attempts: 10",
                "restart-strategy.fixed-delay.delay: 1 s",
                "execution.checkpointing.dir: " + work.resolve("checkpoints").toUri(),
                // a killed TaskManager is noticed within seconds, not the default 50
                "heartbeat.interval: 1000",
                "heartbeat.timeout: 10000",
                "metrics.fetcher.update-interval: 500",
                "io.tmp.dirs: " + work.resolve("tmp"),
                String.join("\n", extraConfig),
                "");
        Files.writeString(conf.resolve("config.yaml"), config);
        Files.writeString(conf.resolve("log4j.properties"), log4j("${sys:log.file}", "INFO"));
        Files.writeString(conf.resolve("log4j-cli.properties"), log4j("${sys:log.file}", "INFO"));
    }

    /** Flink's log4j.properties in short: everything to the process's log file; walsink at INFO. */
    private static String log4j(String file, String level) {
        return String.join(
                "\n",
                "rootLogger.level = " + level,
                "rootLogger.appenderRef.file.ref = file",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + file,
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-60c %x - %m%n",
                "logger.walsink.name = io.walsink",
                "logger.walsink.level = INFO",
                "");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
