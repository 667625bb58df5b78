package io.walsink.bench.engine;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import io.walsink.flink.internal.ConcurrentOpens;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.WalAppend;
import io.walsink.storage.S3Options;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * How long a writer subtask takes to reopen its shards after a failover: every shard restored as
 * of a checkpoint's descriptor, one after another (how the sink did it before) and side by side on
 * as many threads as a subtask has I/O threads ({@link ConcurrentOpens}, what the sink does), on
 * local disk and, given an S3-protocol server, through a {@link LatencyProxy} that adds a
 * network's latency to every request. Each shard holds a WAL tail to replay and orphan entries
 * written after its checkpoint, so every restore rolls back as a failover's does. The report also
 * times what a job's first start does instead: open new shards (claim, no WAL to replay), one at a
 * time (a bucket's first row written as it comes) and side by side (the new buckets of a block of
 * rows).
 */
public final class RestoreReport {
    /** One timed restore of every shard: how many ran at once, the wall time, requests made and rows replayed. */
    record Turn(String store, int parallelism, long nanos, long requests, long replayedRows) {}

    private RestoreReport() {}

    /**
     * What to restore and where: {@code s3Endpoint} empty for local disk only, else the shards are
     * restored a second time on that server through a proxy adding {@code latency}.
     */
    public record Settings(
            String s3Endpoint,
            String bucket,
            int shards,
            long rowsPerShard,
            int rowsPerEntry,
            int parallelism,
            LatencyProxy.Delay latency,
            int rounds,
            long seed) {}

    /** Restores on local disk, then on the server when there is one; returns the table. */
    public static String report(Settings s) throws Exception {
        int shards = s.shards();
        int parallelism = s.parallelism();
        int rounds = s.rounds();
        long seed = s.seed();
        List<Turn> turns = new ArrayList<>();
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> rows =
                    EngineBatches.generate(allocator, s.rowsPerShard(), s.rowsPerEntry(), s.rowsPerShard(), seed);
            try {
                turns.addAll(measure("local disk", null, null, allocator, rows, shards, parallelism, rounds));
                if (!s.s3Endpoint().isEmpty()) {
                    try (LatencyProxy proxy = new LatencyProxy(
                            URI.create(s.s3Endpoint()),
                            0,
                            s.latency().minMillis(),
                            s.latency().maxMillis(),
                            0,
                            seed)) {
                        turns.addAll(measure(
                                "S3 server + " + s.latency().text() + " ms",
                                "s3://" + s.bucket() + "/restore-report",
                                proxy,
                                allocator,
                                rows,
                                shards,
                                parallelism,
                                rounds));
                    }
                }
            } finally {
                rows.forEach(VectorSchemaRoot::close);
            }
        }
        return render(shards, s.rowsPerShard(), s.rowsPerEntry(), seed, turns);
    }

    /** Writes the shards, restores them once untimed, then alternates timed restores of both kinds. */
    static List<Turn> measure(
            String name,
            String s3Root,
            LatencyProxy proxy,
            BufferAllocator allocator,
            List<VectorSchemaRoot> rows,
            int shards,
            int parallelism,
            int rounds) {
        S3Options s3 = proxy == null ? S3Options.defaults() : S3LatencyReport.s3(proxy.endpoint());
        try (BenchTable table = BenchTable.create(
                s3Root, s3, allocator, ShardWriterConfig.builder().build(), EngineBatches.SCHEMA, EngineBatches.KEY)) {
            List<ShardDescriptor> checkpoint = new ArrayList<>();
            List<Turn> turns = new ArrayList<>();
            // A job's first start opens each new shard on its bucket's first row, one at a time: timed too.
            long firstOpens = 0;
            long openRequests = 0;
            for (int s = 0; s < shards; s++) {
                long before = proxy == null ? 0 : total(proxy);
                long start = System.nanoTime();
                ShardWriter writer = table.openShard(table.context(), UUID.randomUUID());
                firstOpens += System.nanoTime() - start;
                openRequests += proxy == null ? 0 : total(proxy) - before;
                checkpoint.add(writeShard(writer, rows));
            }
            String firstOpen = name + ", first open of new shards";
            turns.add(new Turn(firstOpen, 1, firstOpens, openRequests, 0));
            turns.add(firstOpensSideBySide(firstOpen, table, proxy, shards, parallelism));
            // The first restore finds no orphans; later ones roll back the sentinel the one before wrote,
            // as a failover finds entries written after its checkpoint. Untimed, so every timed one does.
            restoreAll(table.context(), checkpoint, parallelism);
            for (int round = 0; round < rounds; round++) {
                int[] order = round % 2 == 0 ? new int[] {1, parallelism} : new int[] {parallelism, 1};
                for (int p : order) {
                    long before = proxy == null ? 0 : total(proxy);
                    long start = System.nanoTime();
                    long replayed = restoreAll(table.context(), checkpoint, p);
                    long nanos = System.nanoTime() - start;
                    turns.add(new Turn(name, p, nanos, proxy == null ? 0 : total(proxy) - before, replayed));
                    System.err.printf("%s, %d at once: %.2f s%n", name, p, nanos / 1e9);
                }
            }
            if (proxy != null) {
                proxy.passThrough(); // the clean-up is not measured
            }
            return turns;
        }
    }

    /** What the sink does for the new buckets of a block of rows: as many new shards, side by side. */
    private static Turn firstOpensSideBySide(
            String name, BenchTable table, LatencyProxy proxy, int shards, int parallelism) {
        List<Supplier<ShardWriter>> opens = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            opens.add(() -> table.openShard(table.context(), UUID.randomUUID()));
        }
        long before = proxy == null ? 0 : total(proxy);
        long start = System.nanoTime();
        List<ShardWriter> opened = ConcurrentOpens.run(opens, parallelism, "first-open-report");
        long nanos = System.nanoTime() - start;
        opened.forEach(ShardWriter::close);
        return new Turn(name, parallelism, nanos, proxy == null ? 0 : total(proxy) - before, 0);
    }

    /** Puts {@code rows} into the new shard's WAL, none in an SSTable: its descriptor as a checkpoint takes it. */
    private static ShardDescriptor writeShard(ShardWriter opened, List<VectorSchemaRoot> rows) {
        try (ShardWriter writer = opened) {
            for (VectorSchemaRoot batch : rows) {
                writer.put(batch);
                Optional<WalAppend> append = writer.beginAppend();
                if (append.isPresent()) {
                    append.get().run();
                    writer.completeAppend(append.get());
                }
            }
            return writer.snapshot();
        }
    }

    /** Restores every shard of {@code checkpoint} and closes it; returns the rows their replays took. */
    private static long restoreAll(TableContext ctx, List<ShardDescriptor> checkpoint, int parallelism) {
        List<Supplier<ShardWriter>> opens = new ArrayList<>();
        int specId = ctx.table().sharding().specId();
        for (ShardDescriptor d : checkpoint) {
            opens.add(() -> ShardRestore.restore(ctx, d, ShardPlacement.bucket(specId, d.bucket())));
        }
        long replayed = 0;
        for (ShardWriter w : ConcurrentOpens.run(opens, parallelism, "restore-report")) {
            replayed += w.stats().replayedRows();
            w.close();
        }
        return replayed;
    }

    private static long total(LatencyProxy proxy) {
        return proxy.requests().values().stream().mapToLong(Long::longValue).sum();
    }

    static String render(int shards, long rowsPerShard, int rowsPerEntry, long seed, List<Turn> turns) {
        TextTable table = new TextTable(
                "store",
                ">at once",
                ">restore of all, s: median",
                ">min",
                ">max",
                ">ms a shard",
                ">requests a shard",
                ">x one at a time",
                ">turns");
        for (String store : turns.stream().map(Turn::store).distinct().toList()) {
            double oneAtATime = Spread.of(seconds(turns, store, 1)).median();
            for (int p : turns.stream()
                    .filter(t -> t.store().equals(store))
                    .mapToInt(Turn::parallelism)
                    .distinct()
                    .sorted()
                    .toArray()) {
                Spread s = Spread.of(seconds(turns, store, p));
                long requests = turns.stream()
                        .filter(t -> t.store().equals(store) && t.parallelism() == p)
                        .mapToLong(Turn::requests)
                        .max()
                        .orElse(0);
                table.row(
                        store,
                        p,
                        Figures.number(s.median()),
                        Figures.number(s.min()),
                        Figures.number(s.max()),
                        Figures.number(s.median() * 1000 / shards),
                        requests == 0 ? "-" : Figures.number((double) requests / shards),
                        String.format("%.2fx", oneAtATime / s.median()),
                        s.rounds());
            }
        }
        return String.format(
                "%n== Restore of %d shards by one writer subtask, each with %,d rows in its WAL tail (entries of"
                        + " %,d rows) to replay and orphan entries to roll back, seed %d ==%n%s",
                shards, rowsPerShard, rowsPerEntry, seed, table.render());
    }

    private static List<Double> seconds(List<Turn> turns, String store, int parallelism) {
        return turns.stream()
                .filter(t -> t.store().equals(store) && t.parallelism() == parallelism)
                .map(t -> t.nanos() / 1e9)
                .toList();
    }
}
