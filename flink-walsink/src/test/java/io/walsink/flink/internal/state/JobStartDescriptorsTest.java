package io.walsink.flink.internal.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.LocalObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Job-start records live in the table folder, so they are read like any other stored object:
 * SSTable paths and bucket numbers are checked, and a bad record is refused naming it.
 */
class JobStartDescriptorsTest {
    private static final String JOB = "0123456789abcdef0123456789abcdef";
    private static final UUID SHARD = UUID.fromString("5d1c8a2e-7b3f-4e0a-9c6d-1f2e3a4b5c6d");

    @TempDir
    Path dir;

    private LocalObjectStore store() {
        return new LocalObjectStore(dir);
    }

    private static String key(String name) {
        return "_walsink/jobs/" + JOB + "/" + name;
    }

    /** A version-1 record written byte by byte, so that any path can be put in it. */
    private static byte[] record(int bucket, long generation, String path) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1); // version 1: no pinned manifest version
            out.writeLong(SHARD.getMostSignificantBits());
            out.writeLong(SHARD.getLeastSignificantBits());
            out.writeInt(bucket);
            out.writeLong(1); // epoch
            out.writeLong(0); // replay_after
            out.writeLong(4); // durable position
            out.writeLong(generation + 1); // current generation
            out.writeLong(0); // published generation
            out.writeInt(1);
            out.writeLong(generation);
            out.writeUTF(path);
            out.writeLong(4); // last WAL position
            out.writeLong(10);
            out.writeLong(1000);
            out.writeLong(100);
        }
        return bytes.toByteArray();
    }

    @Test
    void validRecordsAreRead() throws IOException {
        LocalObjectStore store = store();
        store.putIfAbsent(key("bucket-3.bin"), record(3, 2, "0a0b0c0d_gen_2"));

        Map<Integer, ShardDescriptor> all = new JobStartDescriptors(store, JOB).all();

        assertThat(all).containsOnlyKeys(3);
        assertThat(all.get(3).unpublished()).containsExactly(new WrittenSsTable(2, "0a0b0c0d_gen_2", 4, 10, 1000, 100));
    }

    @Test
    void ssTablePathOutsideTheShardIsRefused() throws IOException {
        LocalObjectStore store = store();
        store.putIfAbsent(key("bucket-0.bin"), record(0, 2, ".."));

        JobStartDescriptors records = new JobStartDescriptors(store, JOB);

        assertThatThrownBy(records::all)
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(store.describe() + key("bucket-0.bin"))
                .hasMessageContaining("'..'");
        assertThatThrownBy(() -> records.read(0))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(store.describe() + key("bucket-0.bin"));
    }

    @Test
    void ssTableFolderOfAnotherGenerationIsRefused() throws IOException {
        LocalObjectStore store = store();
        store.putIfAbsent(key("bucket-0.bin"), record(0, 2, "0a0b0c0d_gen_1"));

        assertThatThrownBy(() -> new JobStartDescriptors(store, JOB).all())
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(store.describe() + key("bucket-0.bin"))
                .hasMessageContaining("'0a0b0c0d_gen_1'");
    }

    @Test
    void recordOfAnotherBucketIsRefused() throws IOException {
        LocalObjectStore store = store();
        store.putIfAbsent(key("bucket-3.bin"), record(5, 2, "0a0b0c0d_gen_2"));

        assertThatThrownBy(() -> new JobStartDescriptors(store, JOB).all())
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(store.describe() + key("bucket-3.bin"))
                .hasMessageContaining("bucket 5");
    }

    @Test
    void malformedRecordNameIsRefused() {
        LocalObjectStore store = store();
        store.putIfAbsent(key("bucket-x.bin"), new byte[] {1});

        assertThatThrownBy(() -> new JobStartDescriptors(store, JOB).all())
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(store.describe() + key("bucket-x.bin"));
    }
}
