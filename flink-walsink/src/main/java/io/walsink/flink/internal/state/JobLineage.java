package io.walsink.flink.internal.state;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * Every job whose checkpoints led to this one, oldest first: their job-start records
 * ({@link JobStartDescriptors}) tell what a shard held before any of them touched it.
 *
 * <p>Every subtask holds the same list, so it is broadcast operator state: each subtask gets a
 * copy on restore, at any parallelism. Union list state would do the same but makes Flink decline
 * every checkpoint while some of the writer's subtasks have finished and others have not.
 */
@Internal
public final class JobLineage {
    static final String STATE_NAME = "walsink-job-lineage";
    /** Where releases before the lineage became broadcast state kept it (union list state). */
    static final String UNION_STATE_NAME = "walsink-jobs";

    private final BroadcastState<String, Integer> state;
    private final List<String> jobs;

    private JobLineage(BroadcastState<String, Integer> state, List<String> jobs) {
        this.state = state;
        this.jobs = jobs;
    }

    /** The restored lineage with {@code currentJob} appended (once: restarts keep their job id). */
    public static JobLineage restore(OperatorStateStore store, String currentJob) throws Exception {
        BroadcastState<String, Integer> state =
                store.getBroadcastState(new MapStateDescriptor<>(STATE_NAME, Types.STRING, Types.INT));
        List<Map.Entry<String, Integer>> restored = new ArrayList<>();
        state.entries().forEach(restored::add);
        restored.sort(Comparator.comparing(Map.Entry::getValue));
        List<String> jobs = new ArrayList<>();
        restored.forEach(e -> jobs.add(e.getKey()));
        if (store.getRegisteredStateNames().contains(UNION_STATE_NAME)) {
            // A checkpoint of an earlier release: its list comes first, it is older than anything here.
            ListState<String> union =
                    store.getUnionListState(new ListStateDescriptor<>(UNION_STATE_NAME, Types.STRING));
            List<String> older = new ArrayList<>();
            for (String id : union.get()) {
                if (!older.contains(id) && !jobs.contains(id)) {
                    older.add(id);
                }
            }
            jobs.addAll(0, older);
            union.clear(); // read once; from now on the broadcast state carries the list
        }
        if (!jobs.contains(currentJob)) {
            jobs.add(currentJob);
        }
        return new JobLineage(state, jobs);
    }

    public List<String> oldestFirst() {
        return List.copyOf(jobs);
    }

    public String current() {
        return jobs.get(jobs.size() - 1);
    }

    void snapshot() throws Exception {
        state.clear();
        for (int i = 0; i < jobs.size(); i++) {
            state.put(jobs.get(i), i);
        }
    }
}
