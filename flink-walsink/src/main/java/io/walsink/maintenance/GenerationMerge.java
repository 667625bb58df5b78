package io.walsink.maintenance;

import io.walsink.format.manifest.MergeJournal;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.BaseMergeInsert;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.SsTableFolder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.memwal.MergedGeneration;
import org.lance.merge.MergeInsertParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges one published generation of a shard into the base table during a {@link Compactor} run:
 * lance-core merge-inserts of the SSTable's rows (and tombstones) with the merge mark in the last
 * commit, each commit checked against the latest merge progress and preceded by a renewal of the
 * run's compaction lease.
 */
final class GenerationMerge {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationMerge.class);
    private static final String TOMBSTONE = "_tombstone";
    private static final int COMMIT_ATTEMPTS = 3;

    private final Dataset base;
    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final BufferAllocator allocator;
    private final CommitHook hook;
    private final CompactionLease lease;
    private final MergeJournal journal;

    GenerationMerge(
            Dataset base,
            String tableUri,
            Map<String, String> storageOptions,
            BufferAllocator allocator,
            CommitHook hook,
            CompactionLease lease,
            MergeJournal journal) {
        this.base = base;
        this.tableUri = tableUri;
        this.storageOptions = storageOptions;
        this.allocator = allocator;
        this.hook = hook;
        this.lease = lease;
        this.journal = journal;
    }

    /**
     * Merges one generation; empty when it turned out to be merged already (by an earlier, crashed
     * run's last commit or by another compactor). Otherwise {upserted rows, deleted keys}.
     */
    Optional<long[]> merge(TableInfo table, UUID shard, SsTable t) {
        long started = System.nanoTime();
        String uri = SsTableFolder.uri(tableUri, shard, t.path());
        try (Dataset sstable = LanceTables.openDataset(allocator, uri, storageOptions)) {
            boolean tombstones =
                    sstable.getSchema().getFields().stream().map(Field::getName).anyMatch(TOMBSTONE::equals);
            long deletes = tombstones ? sstable.countRows(TOMBSTONE + " = true") : 0;
            long upserts = tombstones ? sstable.countRows(TOMBSTONE + " = false") : sstable.countRows();
            List<String> columns =
                    table.schema().getFields().stream().map(Field::getName).toList();
            List<MergedGeneration> mark = List.of(new MergedGeneration(shard.toString(), t.generation()));
            // Before the first commit: a restore that rolls this generation back must learn that
            // the base table may hold part of it, should this run die between its two commits.
            journal.started(shard, t.generation(), t.path());
            // Rows of one generation are newest-per-key already, so its upserts and deletes touch
            // disjoint keys and their order does not matter. lance-core's merge-insert takes one action
            // for matched rows, so a generation with both takes two commits: the deletes first, without
            // the mark (repeating them is harmless), then the upserts with the mark.
            if (deletes > 0 && upserts > 0) {
                if (!commit(shard, t, CommitHook.Step.DELETES, () -> deleteKeys(sstable, table, List.of()))) {
                    journal.finished(shard, t.generation());
                    return Optional.empty();
                }
            }
            boolean marked;
            if (upserts > 0 || deletes == 0) {
                marked = commit(
                        shard,
                        t,
                        CommitHook.Step.MERGE_AND_MARK,
                        () -> mergeInsert(
                                sstable,
                                columns,
                                tombstones ? TOMBSTONE + " = false" : null,
                                fenced(new MergeInsertParams(table.primaryKey()))
                                        .withMatchedUpdateAll()
                                        .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll)
                                        .markGenerationsAsMerged(mark)));
            } else {
                marked = commit(shard, t, CommitHook.Step.MERGE_AND_MARK, () -> deleteKeys(sstable, table, mark));
            }
            journal.finished(shard, t.generation()); // merged now, by this run or another
            if (!marked) {
                return Optional.empty();
            }
            base.checkoutLatest();
            LOG.info(
                    "Shard {}: merged generation {} ({}) into {}: {} rows upserted, {} keys deleted, base version {}, "
                            + "{} ms",
                    shard,
                    t.generation(),
                    t.path(),
                    tableUri,
                    upserts,
                    deletes,
                    base.version(),
                    Duration.ofNanos(System.nanoTime() - started).toMillis());
            return Optional.of(new long[] {upserts, deletes});
        }
    }

    /**
     * Runs one commit against the latest base version, after checking there that the generation is
     * not merged yet (the specification's rule on commit conflicts: reload, skip what is merged,
     * retry the rest). False when it is merged already.
     */
    private boolean commit(UUID shard, SsTable t, CommitHook.Step step, Runnable merge) {
        for (int attempt = 1; ; attempt++) {
            base.checkoutLatest();
            long merged = MergedGenerations.of(base, tableUri).getOrDefault(shard, 0L);
            if (t.generation() <= merged) {
                LOG.info(
                        "Shard {}: generation {} is merged already (through {}); skipping it",
                        shard,
                        t.generation(),
                        merged);
                return false;
            }
            hook.beforeCommit(shard, t.generation(), step);
            lease.renew(); // a compactor whose lease was taken over stops here, before committing
            hook.leaseRenewed(shard, t.generation(), step);
            lease.ensureNotFenced(); // and one whose task closed while it renewed
            try {
                merge.run();
                return true;
            } catch (RuntimeException e) {
                if (attempt >= COMMIT_ATTEMPTS) {
                    LOG.error(
                            "Shard {}: merging generation {} ({}) into {} failed {} times ({}); giving up. What was "
                                    + "merged before stays merged; running the compactor again continues here",
                            shard,
                            t.generation(),
                            t.path(),
                            tableUri,
                            attempt,
                            step);
                    throw e;
                }
                LOG.warn(
                        "Shard {}: merging generation {} failed ({}), attempt {} of {}; retrying on the latest version",
                        shard,
                        t.generation(),
                        step,
                        attempt,
                        COMMIT_ATTEMPTS,
                        e);
            }
        }
    }

    /**
     * A merge-insert that lance-core does not run again on a newer base version. With retries it
     * would: a compactor that passed its merge check and lease renewal, then stalled while another
     * took the lease over and merged this generation and newer ones, would land this older
     * generation's rows over theirs. Without, a commit that meets a concurrent one on the same rows
     * fails, and {@link #commit} checks the merge progress of the latest version again.
     */
    private static MergeInsertParams fenced(MergeInsertParams params) {
        return BaseMergeInsert.fenced(params);
    }

    /** Deletes the keys of the SSTable's tombstones from the base table, marking {@code mark} merged. */
    private void deleteKeys(Dataset sstable, TableInfo table, List<MergedGeneration> mark) {
        List<Field> key = Compactor.keyFields(table);
        if (KeyDeletes.supports(key)
                && !BaseIndexRefresh.keyIndexes(base, table.primaryKey()).isEmpty()) {
            // the merge-insert below would delete nothing; it still commits the mark, if any
            KeyDeletes.delete(base, sstable, TOMBSTONE + " = true", key.get(0), allocator);
        }
        MergeInsertParams params = fenced(new MergeInsertParams(table.primaryKey()))
                .withMatchedDelete()
                .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing);
        mergeInsert(
                sstable,
                table.primaryKey(),
                TOMBSTONE + " = true",
                mark.isEmpty() ? params : params.markGenerationsAsMerged(mark));
    }

    /** Streams the SSTable's rows matching {@code filter}, projected to {@code columns}, into a merge-insert. */
    private void mergeInsert(Dataset sstable, List<String> columns, String filter, MergeInsertParams params) {
        ScanOptions.Builder scan = new ScanOptions.Builder().columns(columns);
        if (filter != null) {
            scan.filter(filter);
        }
        try (LanceScanner scanner = LanceScanner.create(sstable, scan.build(), allocator)) {
            BaseMergeInsert.run(base, params, scanner.scanBatches(), allocator);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // closing the scanner
            throw new IllegalStateException("scanning " + sstable.uri() + " failed", e);
        }
    }
}
