package io.walsink.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink MiniCluster the job tests run on: one task manager with a given number of slots,
 * started once per test class.
 *
 * <pre>{@code
 * @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);
 * }</pre>
 */
public final class MiniClusters {
    private MiniClusters() {}

    public static MiniClusterExtension withSlots(int slots) {
        return new MiniClusterExtension(oneTaskManager(slots).build());
    }

    /** With {@code configuration} for the cluster, e.g. a metric reporter. */
    public static MiniClusterExtension withSlots(int slots, Configuration configuration) {
        return new MiniClusterExtension(
                oneTaskManager(slots).setConfiguration(configuration).build());
    }

    private static MiniClusterResourceConfiguration.Builder oneTaskManager(int slots) {
        return new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots);
    }
}
