package io.walsink.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Which changes a completed checkpoint covers, for readers that must not see a value early.
 *
 * <p>{@link Recorder} passes change numbers through (right after the source, at parallelism 1) and
 * records, when a checkpoint's barrier passes it, one more than the highest change number it let
 * through (restored with its state after a failover): no change at or above it is in that
 * checkpoint, because the barrier is aligned and every change reaching the sink passed the recorder
 * first. It records into a folder, one file per checkpoint id written before the checkpoint can
 * complete (put under a temporary name and renamed).
 *
 * <p>A checkpoint is observed as completed when its {@code chk-N/_metadata} exists under the job's
 * checkpoint folder: Flink writes it while completing the checkpoint, before it notifies any task,
 * so before the sink publishes anything that checkpoint covers. {@link #covered} asked after a read
 * ended is therefore an upper bound, never too low, for what that read may see. A completed
 * checkpoint without a recorded cover can only be one taken after the recorder finished (the end of
 * input): it covers all {@code n} changes.
 *
 * <p>This is weaker than "completed when the read began": a read may see what a checkpoint that
 * completed during the read covers, which is correct for a reader that takes its snapshot at some
 * point of the read.
 */
final class CheckpointCovers {
    private static final Pattern CHECKPOINT = Pattern.compile("chk-(\\d+)");

    private final List<Path> checkpointDirs = new ArrayList<>();
    private final List<Path> coverDirs = new ArrayList<>();
    private final long n;
    /** Per job (folder), the highest cover observed; -1 before a completed checkpoint was seen. */
    private final List<Long> seen = new ArrayList<>();
    /** Per job, where its stop-with-savepoint writes the savepoint; null if it is never stopped so. */
    private final List<Path> savepointDirs = new ArrayList<>();
    /** Per job, the cover of its savepoint once that completed, else null. */
    private final List<Long> stoppedAt = new ArrayList<>();

    /**
     * The checkpoints of one job per folder of {@code checkpointDirs} (several when jobs restore each
     * other's checkpoints), with the covers its recorder wrote into the same index of
     * {@code coverDirs}, for a stream of {@code n} changes.
     */
    CheckpointCovers(List<Path> checkpointDirs, List<Path> coverDirs, long n) {
        this.n = n;
        for (int k = 0; k < checkpointDirs.size(); k++) {
            addJob(checkpointDirs.get(k), coverDirs.get(k), null);
        }
    }

    /**
     * One more job, its checkpoints in {@code checkpointDir}, its covers in {@code coverDir} and the
     * savepoints of its stop-with-savepoint in {@code savepointDir} (or null); returns its index.
     */
    synchronized int addJob(Path checkpointDir, Path coverDir, Path savepointDir) {
        checkpointDirs.add(checkpointDir);
        coverDirs.add(coverDir);
        savepointDirs.add(savepointDir);
        seen.add(-1L);
        stoppedAt.add(null);
        return seen.size() - 1;
    }

    /**
     * The cover job {@code k}'s recorder wrote for the highest checkpoint id it snapshotted (after a
     * stop-with-savepoint: the savepoint's, the last snapshot of the job); 0 if none.
     */
    long lastRecordedCover(int k) throws IOException {
        Path dir = coverDirs.get(k);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> covers = Files.list(dir)) {
            Optional<Path> last = covers.filter(c -> c.getFileName().toString().matches("\\d+"))
                    .max((a, b) -> Long.compare(
                            Long.parseLong(a.getFileName().toString()),
                            Long.parseLong(b.getFileName().toString())));
            return last.isEmpty() ? 0 : Long.parseLong(Files.readString(last.get(), StandardCharsets.UTF_8));
        }
    }

    /**
     * The number of leading changes a checkpoint completed by now covers, at least (0 before any):
     * the highest cover of the newest completed checkpoint of any of the jobs, observed now or
     * before (completions only accumulate; Flink removes a subsumed checkpoint only after a newer one
     * completed). A job whose folder held a completed checkpoint and holds none now has ended, and
     * Flink discarded its checkpoints: that happens when it finished, after the final checkpoint that
     * covers all {@code n} changes (a job ending otherwise fails the test anyway), or when it was
     * stopped with a savepoint. The sink publishes at a savepoint as at a checkpoint, so a completed
     * savepoint ({@code savepoint-*}{@code /_metadata}) counts too, with the cover of the last
     * snapshot the job's recorder took (the savepoint's: nothing is snapshotted after it).
     */
    synchronized long covered() {
        long covered = 0;
        for (int k = 0; k < checkpointDirs.size(); k++) {
            try {
                if (stoppedAt.get(k) == null && hasSavepoint(savepointDirs.get(k))) {
                    stoppedAt.set(k, lastRecordedCover(k));
                }
                if (stoppedAt.get(k) != null) {
                    covered = Math.max(covered, stoppedAt.get(k));
                    continue;
                }
                Optional<Path> newest = newestCheckpoint(checkpointDirs.get(k));
                if (newest.isPresent()) {
                    Path cover = coverDirs.get(k).resolve(Long.toString(checkpointId(newest.get())));
                    long c;
                    try {
                        c = Long.parseLong(Files.readString(cover, StandardCharsets.UTF_8));
                    } catch (NoSuchFileException takenAfterTheRecorderFinished) {
                        c = n;
                    }
                    seen.set(k, Math.max(seen.get(k), c));
                } else if (seen.get(k) >= 0) {
                    seen.set(k, n); // its checkpoints were discarded: the job finished
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            covered = Math.max(covered, seen.get(k));
        }
        return covered;
    }

    private static boolean hasSavepoint(Path savepoints) throws IOException {
        if (savepoints == null || !Files.isDirectory(savepoints)) {
            return false;
        }
        try (Stream<Path> all = Files.list(savepoints)) {
            return all.anyMatch(s -> Files.isRegularFile(s.resolve("_metadata")));
        }
    }

    /** The completed checkpoint with the highest id under {@code checkpoints/{job id}/}. */
    static Optional<Path> newestCheckpoint(Path checkpoints) throws IOException {
        if (!Files.isDirectory(checkpoints)) {
            return Optional.empty();
        }
        List<Path> completed = new ArrayList<>();
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            for (Path job : jobs.toList()) {
                try (Stream<Path> chks = Files.list(job)) {
                    chks.filter(c -> CHECKPOINT
                                    .matcher(c.getFileName().toString())
                                    .matches())
                            .filter(c -> Files.isRegularFile(c.resolve("_metadata")))
                            .forEach(completed::add);
                } catch (IOException | UncheckedIOException concurrentlyDeleted) {
                    // Flink removes subsumed checkpoints while we look
                }
            }
        }
        return completed.stream().max((a, b) -> Long.compare(checkpointId(a), checkpointId(b)));
    }

    static long checkpointId(Path checkpoint) {
        Matcher m = CHECKPOINT.matcher(checkpoint.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException(checkpoint.toString());
        }
        return Long.parseLong(m.group(1));
    }

    /** Passes change numbers through and records, per checkpoint, which of them it covers. */
    static final class Recorder implements MapFunction<Long, Long>, CheckpointedFunction {
        private final String coverDir;
        private transient ListState<Long> state;
        private transient long next;

        Recorder(Path coverDir) {
            this.coverDir = coverDir.toString();
        }

        @Override
        public Long map(Long i) {
            next = Math.max(next, i + 1);
            return i;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            state.update(List.of(next));
            Path dir = Path.of(coverDir);
            Files.createDirectories(dir);
            Path tmp = dir.resolve(context.getCheckpointId() + ".tmp");
            Files.writeString(tmp, Long.toString(next), StandardCharsets.UTF_8);
            Files.move(
                    tmp,
                    dir.resolve(Long.toString(context.getCheckpointId())),
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            state = context.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>("covered-changes", Types.LONG));
            next = 0;
            for (Long restored : state.get()) {
                next = Math.max(next, restored);
            }
        }
    }
}
