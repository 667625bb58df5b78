package io.walsink.maintenance.gc;

import io.walsink.annotation.Internal;
import java.time.Duration;

/**
 * What one run of the {@link GarbageCollector} removed (or, in a dry run, would remove), for
 * metrics and command-line use. {@code bytes} is the size of every removed object.
 *
 * @param shards shards looked at
 * @param walEntries WAL entries
 * @param manifestVersions shard manifest versions
 * @param ssTableFolders SSTable folders (all their files)
 * @param temporaryFiles {@code .tmp-*.partial} files of interrupted puts
 * @param jobRecords {@code _walsink/jobs/} job-start records
 * @param objects every object removed, SSTable files counted one by one
 */
@Internal
public record GcSummary(
        boolean dryRun,
        int shards,
        long walEntries,
        long manifestVersions,
        long ssTableFolders,
        long temporaryFiles,
        long jobRecords,
        long objects,
        long bytes) {

    /**
     * What the run removed from {@code table} under the run's {@code retention} and {@code
     * consumerExpiration}, as the command-line tool and the catalog's procedure print it.
     */
    public String describe(String table, Duration retention, Duration consumerExpiration) {
        return (dryRun ? "Dry run, would remove" : "Removed") + " from " + table + " (retention " + retention
                + ", consumer records expire after " + consumerExpiration + ", " + shards + " shards): "
                + walEntries + " WAL entries, " + manifestVersions + " manifest versions, " + ssTableFolders
                + " SSTable folders, " + temporaryFiles + " temporary files, " + jobRecords + " job records; " + objects
                + " objects, " + bytes + " bytes";
    }

    static final GcSummary EMPTY = new GcSummary(false, 0, 0, 0, 0, 0, 0, 0, 0);

    GcSummary plus(GcSummary o) {
        return new GcSummary(
                dryRun || o.dryRun,
                shards + o.shards,
                walEntries + o.walEntries,
                manifestVersions + o.manifestVersions,
                ssTableFolders + o.ssTableFolders,
                temporaryFiles + o.temporaryFiles,
                jobRecords + o.jobRecords,
                objects + o.objects,
                bytes + o.bytes);
    }
}
