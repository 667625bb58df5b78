package io.walsink.flink;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job {@link WalSinkSoak} runs in each child JVM: {@link WalSinkProcessKillJob}'s pipeline and
 * sink (compaction and garbage collection after every checkpoint), with failures injected inside
 * the JVM, so that Flink restarts the job from its latest checkpoint: a task failure at seeded
 * change numbers (each change with probability 1 / {@code --fail-gap}, once per JVM) and WAL and
 * manifest writes that fail or lose their acknowledgement ({@link FailoverTestSupport#flaky}, up to
 * {@code --store-faults} of them). Each injection and each attempt's start is printed as a line
 * starting with {@value #EVENT}, which {@link SoakLog} reads back as the evidence.
 *
 * <p>A file {@code quiet} in {@code --control} ends the injections; a file {@code stop} ends them and stops the job with a
 * savepoint (printed as {@code SOAK savepoint=<path>}); the process then exits with 0. Any other end
 * of the job exits non-zero. Flags: {@code --table --checkpoints --covers --control --keys
 * --delete-every --changes-seed --n --rate --parallelism --restarts true|false --fail-gap
 * --fault-seed --store-fault-probability --store-faults [--restore path]}.
 */
public final class WalSinkSoakJob {
    static final String EVENT = "SOAK ";

    /** Set once the job is to stop: no more injected failures. */
    static volatile boolean quiet;

    private WalSinkSoakJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> flags = flags(args);
        Path table = Path.of(flags.get("table"));
        Path control = Path.of(flags.get("control"));
        ChangeGenerator changes = new ChangeGenerator(
                Integer.parseInt(flags.get("keys")),
                Integer.parseInt(flags.get("delete-every")),
                Long.parseLong(flags.get("changes-seed")));
        int parallelism = Integer.parseInt(flags.get("parallelism"));
        long faultSeed = Long.parseLong(flags.get("fault-seed"));

        Configuration config =
                WalSinkProcessKillJob.configuration(Path.of(flags.get("checkpoints")), flags.get("restore"));
        if (Boolean.parseBoolean(flags.get("restarts"))) {
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        } else {
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a zombie must not come back by itself
            // a zombie is paused for as long as its successor takes to start (a minute on a loaded machine):
            // resumed, its writers must reach the store, not its own MiniCluster time out its TaskManager first
            config.set(HeartbeatManagerOptions.HEARTBEAT_TIMEOUT, Duration.ofMinutes(10));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        env.setMaxParallelism(128); // fixed, so that any parallelism restores the key groups
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);

        FailoverTestSupport.reset(Long.parseLong(flags.get("store-faults")));
        WalSinkOptions.StoreWrapper flaky =
                FailoverTestSupport.flaky(Double.parseDouble(flags.get("store-fault-probability")), faultSeed);
        WalSinkOptions.StoreWrapper announced = store -> new AnnouncingStore(flaky.wrap(store));
        long failGap = Long.parseLong(flags.get("fail-gap"));
        WalSinkProcessKillJob.pipeline(
                env,
                changes,
                Long.parseLong(flags.get("n")),
                Double.parseDouble(flags.get("rate")),
                Path.of(flags.get("covers")),
                numbers -> numbers.map(new Faults(failGap, faultSeed))
                        .uid("faults")
                        .setParallelism(1),
                WalSinkProcessKillJob.sink(table, true, announced));
        event("parallelism=" + parallelism);
        try {
            JobClient job = env.executeAsync("walsink soak");
            Thread stopper = new Thread(() -> stopOnRequest(job, control), "soak-stopper");
            stopper.setDaemon(true);
            stopper.start();
            job.getJobExecutionResult().get();
            event("finished");
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            event("failed " + t);
            System.exit(1);
        }
    }

    static Map<String, String> flags(String[] args) {
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --flag value, got " + args[i]);
            }
            flags.put(args[i].substring(2), args[i + 1]);
        }
        return flags;
    }

    static void event(String what) {
        System.out.println(EVENT + what);
        System.out.flush();
    }

    /** No more injected failures: the job can complete checkpoints however slowly it restarts. */
    private static void beQuiet() {
        quiet = true;
        FailoverTestSupport.STORE_FAULT_BUDGET.set(0);
        event("quiet");
    }

    /**
     * Ends the injections once {@code control/quiet} exists; waits for {@code control/stop}, then
     * stops the job with a savepoint, retrying while it restarts.
     */
    private static void stopOnRequest(JobClient job, Path control) {
        try {
            while (!Files.exists(control.resolve("stop"))) {
                if (!quiet && Files.exists(control.resolve("quiet"))) {
                    beQuiet();
                }
                Thread.sleep(50); // pacing the look at the control folder, not synchronisation
            }
            beQuiet();
            event("stopping");
            for (int attempt = 1; ; attempt++) {
                try {
                    String savepoint = job.stopWithSavepoint(
                                    false,
                                    control.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(2, TimeUnit.MINUTES);
                    event("savepoint=" + savepoint);
                    return;
                } catch (Exception e) {
                    // e.g. a restart in progress: not all tasks running; try again
                    event("stop-with-savepoint attempt " + attempt + " failed: " + e);
                    if (attempt == 50) {
                        return;
                    }
                    Thread.sleep(500);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Prints each attempt's start (with the checkpoint it restored) and fails the task at seeded
     * change numbers, once each in this JVM, until the job is to stop.
     */
    static final class Faults extends RichMapFunction<Long, Long> implements CheckpointedFunction {
        private static final Set<Long> FAILED_AT = ConcurrentHashMap.newKeySet();
        private final long gap;
        private final long seed;
        private transient String restored;

        Faults(long gap, long seed) {
            this.gap = gap;
            this.seed = seed;
        }

        /** Whether change {@code i} is one the job fails at (a pure function of the seed and {@code i}). */
        static boolean failsAt(long i, long gap, long seed) {
            return gap > 0 && new SplittableRandom(seed ^ (i * 0x9E3779B97F4A7C15L)).nextLong(gap) == 0;
        }

        @Override
        public void open(OpenContext context) {
            event("attempt=" + getRuntimeContext().getTaskInfo().getAttemptNumber() + " restored=" + restored);
        }

        @Override
        public Long map(Long i) {
            if (!quiet && failsAt(i, gap, seed) && FAILED_AT.add(i)) {
                event("task-failure change=" + i);
                throw new IllegalStateException("injected failure at change " + i);
            }
            return i;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void initializeState(FunctionInitializationContext context) {
            restored = context.getRestoredCheckpointId().isPresent()
                    ? Long.toString(context.getRestoredCheckpointId().getAsLong())
                    : "none";
        }
    }

    /** Prints every fault the wrapped fault-injecting store throws, then throws it on. */
    private static final class AnnouncingStore extends ForwardingObjectStore {
        AnnouncingStore(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public void putIfAbsent(String key, byte[] data) {
            try {
                super.putIfAbsent(key, data);
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage());
                if (message.contains("injected loss of the acknowledgement")) {
                    event("store-fault=lost-ack " + key);
                } else if (message.contains("injected failure of")) {
                    event("store-fault=write-failure " + key);
                }
                throw e;
            }
        }
    }
}
