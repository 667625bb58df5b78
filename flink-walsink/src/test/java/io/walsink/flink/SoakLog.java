package io.walsink.flink;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link WalSinkSoakJob} child's output says happened: its attempts (each restart of the job
 * by Flink inside the JVM, with the checkpoint it restored), the faults injected, and why each
 * restart happened, read from the failure causes Flink's tasks log between two attempts' starts
 * (a task's {@code switched from ... to FAILED with failure cause:} line and its stack trace).
 */
final class SoakLog {
    /** Why Flink restarted the job inside the JVM. */
    enum Restart {
        /** The injected exception at a seeded change. */
        TASK_FAILURE,
        /** An injected store fault (a write failed, or its acknowledgement was lost) failed a task. */
        STORE_FAULT,
        /** Anything else: nothing was injected to cause it. */
        UNEXPLAINED
    }

    private static final Pattern ATTEMPT = Pattern.compile("^SOAK attempt=(\\d+) restored=(\\S+)");
    private static final Pattern LOG_LINE = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ");

    /** Per attempt, in order, the checkpoint it restored ("none" when it started empty). */
    final List<String> restored = new ArrayList<>();

    final Map<Restart, Integer> restarts = new EnumMap<>(Restart.class);
    /** The first line of each unexplained restart's causes, or a note that no task failure was logged. */
    final List<String> unexplained = new ArrayList<>();

    int taskFailuresInjected;
    int lostAcks;
    int writeFailures;
    /** Task failures whose cause says the writer was fenced (a zombie's end). */
    int fencedFailures;

    String parallelism;
    String savepoint;
    boolean finished;

    SoakLog(List<String> lines) {
        for (Restart r : Restart.values()) {
            restarts.put(r, 0);
        }
        List<String> causes = new ArrayList<>(); // failure causes logged since the last attempt started
        StringBuilder cause = null;
        for (String line : lines) {
            if (cause != null && (LOG_LINE.matcher(line).find() || line.startsWith(WalSinkSoakJob.EVENT))) {
                addCause(causes, cause.toString());
                cause = null;
            }
            if (cause != null) {
                cause.append('\n').append(line);
                continue;
            }
            if (line.contains(" to FAILED with failure cause")) {
                cause = new StringBuilder(line);
                continue;
            }
            Matcher attempt = ATTEMPT.matcher(line);
            if (attempt.find()) {
                int number = Integer.parseInt(attempt.group(1));
                if (number == restored.size()) { // one line per attempt: the map runs at parallelism 1
                    if (number > 0) {
                        classify(causes);
                    }
                    restored.add(attempt.group(2));
                    causes.clear();
                }
            } else if (line.startsWith("SOAK task-failure")) {
                taskFailuresInjected++;
            } else if (line.startsWith("SOAK store-fault=lost-ack")) {
                lostAcks++;
            } else if (line.startsWith("SOAK store-fault=write-failure")) {
                writeFailures++;
            } else if (line.startsWith("SOAK parallelism=")) {
                parallelism = line.substring("SOAK parallelism=".length()).trim();
            } else if (line.startsWith("SOAK savepoint=")) {
                savepoint = line.substring("SOAK savepoint=".length()).trim();
            } else if (line.startsWith("SOAK finished")) {
                finished = true;
            }
        }
        if (cause != null) {
            addCause(causes, cause.toString());
        }
    }

    private void addCause(List<String> causes, String cause) {
        causes.add(cause);
        if (cause.contains("FENCED")) {
            fencedFailures++;
        }
    }

    private void classify(List<String> causes) {
        Restart why;
        if (causes.stream().anyMatch(c -> c.contains("injected failure at change"))) {
            why = Restart.TASK_FAILURE;
        } else if (causes.stream()
                .anyMatch(
                        c -> c.contains("injected loss of the acknowledgement") || c.contains("injected failure of"))) {
            why = Restart.STORE_FAULT;
        } else {
            why = Restart.UNEXPLAINED;
            unexplained.add(
                    causes.isEmpty() ? "no task failure logged before attempt " + restored.size() : firstLines(causes));
        }
        restarts.merge(why, 1, Integer::sum);
    }

    private static String firstLines(List<String> causes) {
        StringBuilder b = new StringBuilder();
        for (String c : causes) {
            String[] lines = c.split("\n");
            b.append(lines[0]);
            for (int i = 1; i < lines.length; i++) {
                if (lines[i].startsWith("Caused by")) {
                    b.append(" / ").append(lines[i]);
                }
            }
            b.append("; ");
        }
        return b.toString();
    }

    /** Restarts inside the JVM: attempts after the first. */
    int restartCount() {
        return Math.max(0, restored.size() - 1);
    }
}
