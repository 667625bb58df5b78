package io.walsink.maintenance.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.storage.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temporary files of interrupted puts and job-start records go once older than the retention. */
class GarbageCollectorHousekeepingTest {
    private static final Instant NOW = Instant.parse("2030-06-01T00:00:00Z");
    private static final Duration RETENTION = Duration.ofDays(2);
    private static final String SHARD = "_mem_wal/" + UUID.fromString("7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d") + "/";

    @TempDir
    Path root;

    private Path file(String relative, Instant modified) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {1, 2, 3});
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    @Test
    void oldLeftoversAndJobRecordsGoYoungOnesAndOtherFilesStay() throws IOException {
        Instant old = NOW.minus(RETENTION).minusSeconds(1);
        Instant young = NOW.minus(RETENTION).plusSeconds(1);
        Path oldTemp = file(SHARD + "wal/.tmp-" + UUID.randomUUID() + ".partial", old);
        Path youngTemp = file(SHARD + "manifest/.tmp-" + UUID.randomUUID() + ".partial", young);
        Path oldJobTemp = file("_walsink/jobs/j1/.tmp-" + UUID.randomUUID() + ".partial", old);
        Path oldRecord = file("_walsink/jobs/j1/bucket-0.bin", old);
        Path youngRecord = file("_walsink/jobs/j2/bucket-3.bin", young);
        Path notARecord = file("_walsink/jobs/j3/notes.txt", old);
        LocalObjectStore store = new LocalObjectStore(root);
        GarbageCollector.Options options = GarbageCollector.Options.retaining(RETENTION);
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

        GcSummary dry = new GarbageCollector(store, options.dryRun(true), clock).collect();

        assertThat(dry).isEqualTo(new GcSummary(true, 0, 0, 0, 0, 2, 1, 3, 9));
        assertThat(oldTemp).exists();
        assertThat(oldRecord).exists();

        GcSummary real = new GarbageCollector(store, options, clock).collect();

        assertThat(real).isEqualTo(new GcSummary(false, 0, 0, 0, 0, 2, 1, 3, 9));
        assertThat(oldTemp).doesNotExist();
        assertThat(oldJobTemp).doesNotExist();
        assertThat(oldRecord).doesNotExist();
        assertThat(root.resolve("_walsink/jobs/j1")).doesNotExist();
        assertThat(youngTemp).exists();
        assertThat(youngRecord).exists();
        assertThat(notARecord).exists();
    }
}
