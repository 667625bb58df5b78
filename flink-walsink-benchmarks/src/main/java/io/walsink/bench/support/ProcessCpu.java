package io.walsink.bench.support;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this whole process, all threads (native ones included): what a writer's put phase
 * cost beside how long it took, so a writer that spreads its puts over background threads is not
 * mistaken for a cheaper one.
 */
public final class ProcessCpu {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ProcessCpu() {}

    /** Process CPU nanoseconds so far; fails rather than report a number the JVM cannot give. */
    public static long nanos() {
        long cpu = OS.getProcessCpuTime();
        if (cpu < 0) {
            throw new IllegalStateException("this JVM does not report process CPU time");
        }
        return cpu;
    }
}
