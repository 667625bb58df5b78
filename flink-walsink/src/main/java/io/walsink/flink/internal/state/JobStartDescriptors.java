package io.walsink.flink.internal.state;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardDescriptorSerializer;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The state of each shard when this job first opened it, kept in the table folder under
 * {@code _walsink/jobs/{job id}/} (a folder Lance does not read).
 *
 * <p>A checkpoint only describes the shards it covers. Two cases need the state from before the
 * job touched a shard: a restart before the first checkpoint completed (Flink restores nothing,
 * the source starts over, and the WAL already holds rows of the failed attempt), and a shard the
 * job opened after the checkpoint it restores from. Rolling such a shard back to its job-start
 * state keeps what earlier jobs wrote and drops only this job's uncommitted rows; rolling it back
 * to empty would lose earlier jobs' data.
 */
@Internal
public final class JobStartDescriptors {
    private final ObjectStore store;
    private final String jobId;
    private final String prefix;

    public JobStartDescriptors(ObjectStore store, String jobId) {
        this.store = store;
        this.jobId = jobId;
        this.prefix = TableLayout.jobStartFolder(jobId);
    }

    /**
     * Every bucket this job has opened so far (one LIST).
     *
     * @throws FormatException naming the record if one is malformed (see {@link #read})
     */
    public Map<Integer, ShardDescriptor> all() {
        Map<Integer, ShardDescriptor> all = new HashMap<>();
        for (ObjectMeta meta : store.listAll(prefix)) {
            String name = meta.key().substring(prefix.length());
            if (TableLayout.looksLikeJobStartRecord(name)) {
                OptionalInt named = TableLayout.jobStartRecordBucket(name);
                if (named.isEmpty()) {
                    throw new FormatException(location(meta.key()), "not a job-start record name bucket-{b}.bin", null);
                }
                int bucket = named.getAsInt();
                read(bucket).ifPresent(d -> all.put(bucket, d));
            }
        }
        return all;
    }

    /**
     * The record of {@code bucket}. It lives in the table folder like the manifests, so it is
     * checked like them: it must decode, describe its own bucket, and name SSTable folders of
     * the shard only (a restore publishes them).
     *
     * @throws FormatException naming the record otherwise
     */
    Optional<ShardDescriptor> read(int bucket) {
        byte[] bytes;
        try {
            bytes = store.get(key(bucket));
        } catch (ObjectNotFoundException absent) {
            return Optional.empty();
        }
        ShardDescriptor d;
        try {
            d = ShardDescriptorSerializer.deserialize(bytes);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new FormatException(location(key(bucket)), "not a valid job-start record: " + e.getMessage(), e);
        }
        if (d.bucket() != bucket) {
            throw new FormatException(
                    location(key(bucket)), "record of bucket " + bucket + " describes bucket " + d.bucket(), null);
        }
        return Optional.of(d);
    }

    private String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    /** Records the first state only: a later attempt must not replace what the first one saw. */
    public void recordIfAbsent(int bucket, ShardDescriptor descriptor) {
        try {
            store.putIfAbsent(key(bucket), ShardDescriptorSerializer.serialize(descriptor));
        } catch (ObjectAlreadyExistsException recorded) {
            // an earlier attempt of this job recorded it; that one is the job's start
        }
    }

    private String key(int bucket) {
        return TableLayout.jobStartRecordKey(jobId, bucket);
    }
}
