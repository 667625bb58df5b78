package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.BaseMergeInsert;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.memwal.MergedGeneration;
import org.lance.merge.MergeInsertParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges published generations into the base table during a compaction run (of the {@code
 * maintenance.compaction} engine): one generation per shard, of one shard or of several shards
 * whose keys are disjoint (different buckets), with lance-core merge-inserts of the SSTables' rows
 * (and tombstones) and the merge mark of all of them in the last commit. Each commit is checked against the latest merge progress and preceded by a
 * renewal of the run's compaction lease.
 */
@Internal
public final class GenerationMerge {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationMerge.class);
    private static final String TOMBSTONE = "_tombstone";
    private static final int COMMIT_ATTEMPTS = 3;

    /** One shard's generation in a merge. */
    public record Member(UUID shard, SsTable sstable) {}

    /** One member's part of what its merge did. */
    public record Merged(Member member, long upserts, long deletes) {}

    /** A member's SSTable, open for the merge, with its counts. */
    private record Source(Member member, Dataset sstable, boolean tombstones, long upserts, long deletes) {}

    private final Dataset base;
    private final TableLocation location;
    private final BufferAllocator allocator;
    private final CommitHook hook;
    private final CompactionLease lease;
    private final MergeJournal journal;

    public GenerationMerge(
            Dataset base,
            TableLocation location,
            BufferAllocator allocator,
            CommitHook hook,
            CompactionLease lease,
            MergeJournal journal) {
        this.base = base;
        this.location = location;
        this.allocator = allocator;
        this.hook = hook;
        this.lease = lease;
        this.journal = journal;
    }

    /**
     * Merges {@code members}, at most one per shard and of shards with disjoint keys, in one commit
     * (two when they hold both upserts and deletes). Returns what this run merged; a member merged
     * already (by an earlier, crashed run's last commit or by another compactor) is left out.
     */
    public List<Merged> merge(TableInfo table, List<Member> members) {
        long started = System.nanoTime();
        List<Source> sources = new ArrayList<>();
        try {
            for (Member m : members) {
                sources.add(open(m));
            }
            // Before the first of several commits: a restore that rolls a generation back must learn
            // that the base table may hold part of it, should this run die between them. One commit
            // is atomic (all its generations marked, or nothing of them in the base table): no record.
            boolean separateDeletes = separateDeletes(table, sources);
            if (separateDeletes) {
                members.forEach(m -> journal.started(
                        m.shard(), m.sstable().generation(), m.sstable().path()));
            }
            List<Source> marked = mergeOpen(table, sources, separateDeletes);
            if (separateDeletes) {
                members.forEach(m -> journal.finished(m.shard(), m.sstable().generation())); // merged, by someone
            }
            if (marked.isEmpty()) {
                return List.of();
            }
            base.checkoutLatest();
            long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            for (Source s : marked) {
                LOG.info(
                        "Shard {}: merged generation {} ({}) into {}: {} rows upserted, {} keys deleted, base version"
                                + " {}, {} ms{}",
                        s.member().shard(),
                        s.member().sstable().generation(),
                        s.member().sstable().path(),
                        location.uri(),
                        s.upserts(),
                        s.deletes(),
                        base.version(),
                        millis,
                        marked.size() == 1 ? "" : " (one commit with " + (marked.size() - 1) + " other shards)");
            }
            return marked.stream()
                    .map(s -> new Merged(s.member(), s.upserts(), s.deletes()))
                    .toList();
        } finally {
            sources.forEach(s -> s.sstable().close());
        }
    }

    private Source open(Member m) {
        String uri = location.ssTableUri(m.shard(), m.sstable().path());
        Dataset sstable = location.open(allocator, uri);
        try {
            boolean tombstones =
                    sstable.getSchema().getFields().stream().map(Field::getName).anyMatch(TOMBSTONE::equals);
            long deletes = tombstones ? sstable.countRows(TOMBSTONE + " = true") : 0;
            long upserts = sstable.countRows() - deletes; // an unfiltered count reads no data
            return new Source(m, sstable, tombstones, upserts, deletes);
        } catch (RuntimeException e) {
            sstable.close();
            throw e;
        }
    }

    /**
     * Rows of one generation are newest-per-key already and members' keys are disjoint, so the
     * upserts and deletes of all members touch disjoint keys and their order does not matter.
     * lance-core's merge-insert takes one action for matched rows, and deletes nothing a key index
     * covers, so deletes go first in commits of their own, without the mark (repeating them is
     * harmless), when the members also have upserts or the base table has a key index ({@link
     * #separateDeletes}); then the upserts, or the deletes again, with the mark. Returns the members
     * this run marked merged.
     */
    private List<Source> mergeOpen(TableInfo table, List<Source> sources, boolean separateDeletes) {
        List<Source> pending = sources;
        boolean deletes = sources.stream().anyMatch(s -> s.deletes() > 0);
        boolean upserts = sources.stream().anyMatch(s -> s.upserts() > 0);
        if (separateDeletes) {
            pending = commit(pending, CommitHook.Step.DELETES, now -> deleteKeys(now, table));
            if (pending.isEmpty()) {
                return pending;
            }
        }
        List<Field> columns = table.schema().getFields();
        if (upserts || !deletes) {
            return commit(
                    pending,
                    CommitHook.Step.MERGE_AND_MARK,
                    now -> mergeInsert(
                            now.stream()
                                    .map(s -> new SsTableRows.Part(
                                            s.sstable(), s.tombstones() ? TOMBSTONE + " = false" : null))
                                    .toList(),
                            columns,
                            fenced(new MergeInsertParams(table.primaryKey()))
                                    .withMatchedUpdateAll()
                                    .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll)
                                    .markGenerationsAsMerged(mark(now))));
        }
        return commit(pending, CommitHook.Step.MERGE_AND_MARK, now -> markDeletes(now, table, mark(now)));
    }

    /**
     * Whether the members' deletes are committed apart from their mark: when they also have upserts
     * (lance-core's merge-insert takes one action for matched rows) or the base table has an index on
     * the key (its deletes are plain deletes, {@link KeyDeletes}). Such a merge is journalled.
     */
    private boolean separateDeletes(TableInfo table, List<Source> sources) {
        if (sources.stream().noneMatch(s -> s.deletes() > 0)) {
            return false;
        }
        return sources.stream().anyMatch(s -> s.upserts() > 0) || plainDeletes(table);
    }

    private boolean plainDeletes(TableInfo table) {
        return KeyDeletes.supports(KeyDeletes.keyFields(table)) && KeyDeletes.needed(base, table.primaryKey());
    }

    private static List<MergedGeneration> mark(List<Source> sources) {
        return sources.stream()
                .map(s -> new MergedGeneration(
                        s.member().shard().toString(), s.member().sstable().generation()))
                .toList();
    }

    /**
     * Runs one commit against the latest base version, after checking there which members are
     * not merged yet (the specification's rule on commit conflicts: reload, skip what is merged,
     * retry the rest). Returns the members the commit was for, empty when all were merged already.
     */
    private List<Source> commit(List<Source> sources, CommitHook.Step step, Consumer<List<Source>> merge) {
        for (int attempt = 1; ; attempt++) {
            base.checkoutLatest();
            Map<UUID, Long> progress = MergedGenerations.of(base, location.uri());
            List<Source> now = new ArrayList<>();
            for (Source s : sources) {
                long merged = progress.getOrDefault(s.member().shard(), 0L);
                if (s.member().sstable().generation() <= merged) {
                    LOG.info(
                            "Shard {}: generation {} is merged already (through {}); skipping it",
                            s.member().shard(),
                            s.member().sstable().generation(),
                            merged);
                } else {
                    now.add(s);
                }
            }
            if (now.isEmpty()) {
                return now;
            }
            now.forEach(s ->
                    hook.beforeCommit(s.member().shard(), s.member().sstable().generation(), step));
            lease.renew(); // a compactor whose lease was taken over stops here, before committing
            now.forEach(s ->
                    hook.leaseRenewed(s.member().shard(), s.member().sstable().generation(), step));
            lease.ensureNotFenced(); // and one whose task closed while it renewed
            try {
                merge.accept(now);
                return now;
            } catch (RuntimeException e) {
                if (attempt >= COMMIT_ATTEMPTS) {
                    LOG.error(
                            "Merging {} into {} failed {} times ({}); giving up. What was merged before stays merged; "
                                    + "running the compactor again continues here",
                            describe(now),
                            location.uri(),
                            attempt,
                            step);
                    throw e;
                }
                LOG.warn(
                        "Merging {} failed ({}), attempt {} of {}; retrying on the latest version",
                        describe(now),
                        step,
                        attempt,
                        COMMIT_ATTEMPTS,
                        e);
            }
        }
    }

    /** "shard s generation g (path)" for each member (one per shard), for logs. */
    private static String describe(List<Source> sources) {
        return sources.stream()
                .map(s -> "shard " + s.member().shard() + " generation "
                        + s.member().sstable().generation() + " ("
                        + s.member().sstable().path() + ")")
                .collect(Collectors.joining("; "));
    }

    /**
     * A merge-insert that lance-core does not run again on a newer base version. With retries it
     * would: a compactor that passed its merge check and lease renewal, then stalled while another
     * took the lease over and merged these generations and newer ones, would land these older
     * generations' rows over theirs. Without, a commit that meets a concurrent one on the same rows
     * fails, and {@link #commit} checks the merge progress of the latest version again.
     */
    private static MergeInsertParams fenced(MergeInsertParams params) {
        return BaseMergeInsert.fenced(params);
    }

    /**
     * The members' deletes without the mark: plain deletes where the base table has a key index
     * (lance-core's merge-insert would delete nothing it covers), a merge-insert otherwise.
     */
    private void deleteKeys(List<Source> sources, TableInfo table) {
        List<Source> withDeletes = withDeletes(sources);
        if (!plainDeletes(table)) {
            markDeletes(withDeletes, table, List.of());
            return;
        }
        Field key = KeyDeletes.keyFields(table).get(0);
        ScanOptions scan = new ScanOptions.Builder()
                .columns(List.of(key.getName()))
                .filter(TOMBSTONE + " = true")
                .build();
        for (Source s : withDeletes) {
            try (LanceScanner scanner = LanceScanner.create(s.sstable(), scan, allocator);
                    ArrowReader keys = scanner.scanBatches()) {
                KeyDeletes.delete(base, key, keys);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(
                        "deleting the keys of " + s.sstable().uri() + " from " + location.uri() + " failed", e);
            }
            hook.keysDeleted(s.member().shard(), s.member().sstable().generation());
        }
    }

    /**
     * A merge-insert of the members' tombstone keys, "matched: delete", carrying {@code mark}. Under
     * a key index it deletes only rows the index does not cover, which {@link #deleteKeys} removed
     * already; the mark is what it is for there.
     */
    private void markDeletes(List<Source> sources, TableInfo table, List<MergedGeneration> mark) {
        List<Source> withDeletes = withDeletes(sources);
        MergeInsertParams params = fenced(new MergeInsertParams(table.primaryKey()))
                .withMatchedDelete()
                .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing);
        mergeInsert(
                withDeletes.stream()
                        .map(s -> new SsTableRows.Part(s.sstable(), TOMBSTONE + " = true"))
                        .toList(),
                table.primaryKey().stream().map(table.schema()::findField).toList(),
                mark.isEmpty() ? params : params.markGenerationsAsMerged(mark));
    }

    private static List<Source> withDeletes(List<Source> sources) {
        List<Source> withDeletes = sources.stream().filter(s -> s.deletes() > 0).toList();
        if (withDeletes.isEmpty()) {
            throw new IllegalStateException("a delete commit for " + describe(sources) + ", which delete nothing");
        }
        return withDeletes;
    }

    /** Streams the parts' rows, projected to {@code columns}, into one merge-insert. */
    private void mergeInsert(List<SsTableRows.Part> parts, List<Field> columns, MergeInsertParams params) {
        BaseMergeInsert.run(base, params, new SsTableRows(parts, columns, allocator), allocator);
    }
}
