package io.walsink.bench.engine;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.PolledTimer;
import io.walsink.bench.support.TextTable;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.storage.S3Options;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;

/**
 * The shard engine on local disk beside an S3-protocol server reached directly and through a
 * {@link LatencyProxy} that adds a network's latency and S3's {@code 503 SlowDown} answers:
 * rows/s, WAL PUTs per shard per second against the ticker's bound, requests per GB by the kind
 * S3 bills, the SSTable writes at the end, and the replay of one shard's WAL after a failure.
 *
 * <p>Several shards share one owner thread and one I/O pool, as a writer subtask's buckets do
 * ({@code sink.io-threads} = 4); rows go to the shards batch by batch, the ticker's timers fire
 * between batches, and at the end every memtable is written as an SSTable and published. Replay
 * is measured on a shard of its own holding one shard's share of the rows, in WAL entries of the
 * size the ingest made.
 *
 * <p>Needs a running S3-protocol server with the bucket created, e.g. s3mock (the jar the library's
 * tests fetch into {@code flink-walsink/target/s3mock/}):
 */
public final class S3LatencyReport {
    private static final int BATCH_ROWS = 1024;
    private static final int IO_THREADS = 4;

    /** Where a run writes: local disk (no proxy), or the server through a proxy with these settings. */
    record Store(String name, boolean s3, int minMillis, int maxMillis, double slowDown) {}

    /** What one store's run measured; request counts are empty for local disk. */
    record Outcome(
            Store store,
            long rows,
            int shards,
            long ingestNanos,
            long walAppends,
            long walBytes,
            long sstableNanos,
            Map<LatencyProxy.Kind, Long> requests,
            long slowDowns,
            long replayNanos,
            long replayedRows,
            long replayedEntries,
            long replayRequests) {
        double rowsPerSecond() {
            return rows * 1e9 / ingestNanos;
        }

        double walPutsPerShardSecond() {
            return walAppends * 1e9 / ingestNanos / shards;
        }

        double perGb(LatencyProxy.Kind kind) {
            return requests.getOrDefault(kind, 0L) / (walBytes / 1e9);
        }
    }

    private S3LatencyReport() {}

    /** The server to measure against, the rows, and what the proxy adds in the third run. */
    public record Settings(
            String s3Endpoint,
            String bucket,
            long rows,
            long keys,
            int shards,
            long flushMs,
            LatencyProxy.Delay latency,
            double slowDown,
            long seed) {}

    /** One run per store (local disk, the server, the server through the proxy); returns the table. */
    public static String report(Settings s) throws Exception {
        List<Store> stores = List.of(
                new Store("local disk", false, 0, 0, 0),
                new Store("S3 server, no added latency", true, 0, 0, 0),
                new Store(
                        "S3 server + " + s.latency().text() + " ms, " + s.slowDown() + " 503",
                        true,
                        s.latency().minMillis(),
                        s.latency().maxMillis(),
                        s.slowDown()));
        long rows = s.rows();
        int shards = s.shards();
        long flushMs = s.flushMs();
        long seed = s.seed();
        List<Outcome> outcomes = new ArrayList<>();
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, rows, BATCH_ROWS, s.keys(), seed);
            try {
                for (Store store : stores) {
                    outcomes.add(run(
                            store,
                            URI.create(s.s3Endpoint()),
                            "s3://" + s.bucket() + "/latency-report",
                            allocator,
                            batches,
                            shards,
                            flushMs,
                            seed));
                    System.err.println("done: " + store.name());
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
        return render(rows, shards, flushMs, seed, outcomes);
    }

    static Outcome run(
            Store store,
            URI endpoint,
            String s3Root,
            BufferAllocator allocator,
            List<VectorSchemaRoot> batches,
            int shards,
            long flushMs,
            long seed)
            throws Exception {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .flushInterval(Duration.ofMillis(flushMs))
                .build();
        LatencyProxy proxy = store.s3()
                ? new LatencyProxy(endpoint, 0, store.minMillis(), store.maxMillis(), store.slowDown(), seed)
                : null;
        BenchTable table = null;
        try {
            table = BenchTable.create(
                    store.s3() ? s3Root : null,
                    store.s3() ? s3(proxy.endpoint()) : S3Options.defaults(),
                    allocator,
                    config,
                    EngineBatches.SCHEMA,
                    EngineBatches.KEY);
            Map<LatencyProxy.Kind, Long> before = proxy == null ? Map.of() : proxy.requests();
            long slowDownsBefore = proxy == null ? 0 : proxy.slowDowns();
            Ingest ingest = ingest(table, batches, shards);
            Map<LatencyProxy.Kind, Long> requests = proxy == null ? Map.of() : difference(proxy.requests(), before);
            long slowDowns = proxy == null ? 0 : proxy.slowDowns() - slowDownsBefore;

            List<VectorSchemaRoot> share = batches.subList(0, Math.max(1, batches.size() / shards));
            int entryRows = (int) Math.max(1, ingest.rows / Math.max(1, ingest.walAppends));
            WalReplayRun.Written written = WalReplayRun.write(table, share, entryRows);
            long beforeReplay = proxy == null ? 0 : total(proxy.requests());
            WalReplayRun.Reopened reopened = WalReplayRun.reopen(table, written.shardId());
            long replayRequests = proxy == null ? 0 : total(proxy.requests()) - beforeReplay;
            return new Outcome(
                    store,
                    ingest.rows,
                    shards,
                    ingest.durableNanos,
                    ingest.walAppends,
                    ingest.walBytes,
                    ingest.sstableNanos,
                    requests,
                    slowDowns,
                    reopened.nanos(),
                    reopened.rows(),
                    reopened.entries(),
                    replayRequests);
        } finally {
            if (proxy != null) {
                proxy.passThrough(); // the clean-up is not measured: no latency for its deletes
            }
            if (table != null) {
                table.close();
            }
            if (proxy != null) {
                proxy.close();
            }
        }
    }

    private record Ingest(long rows, long durableNanos, long sstableNanos, long walAppends, long walBytes) {}

    /** Batches to the shards in turn through the production driver, then every memtable as an SSTable. */
    private static Ingest ingest(BenchTable table, List<VectorSchemaRoot> batches, int shards)
            throws InterruptedException {
        ExecutorService io = Executors.newFixedThreadPool(IO_THREADS, r -> {
            Thread t = new Thread(r, "walsink-bench-io");
            t.setDaemon(true);
            return t;
        });
        QueuedShardIo queued = new QueuedShardIo(io);
        PolledTimer timer = new PolledTimer();
        ShardDrivers drivers = ShardDrivers.unbudgeted(queued, timer, System::currentTimeMillis);
        List<ShardWriter> writers = new ArrayList<>();
        try {
            List<ShardDriver> drivenShards = new ArrayList<>();
            for (int s = 0; s < shards; s++) {
                ShardWriter writer = table.openShard();
                writers.add(writer);
                drivenShards.add(drivers.add(s, writer));
            }
            long start = System.nanoTime();
            int next = 0;
            for (VectorSchemaRoot batch : batches) {
                drivers.put(drivenShards.get(next), batch);
                next = (next + 1) % shards;
                queued.runCompleted();
                timer.fireIfDue(drivers, System.currentTimeMillis());
            }
            drivers.drainAppends();
            long durable = System.nanoTime() - start;
            long rows = 0;
            long appends = 0;
            long walBytes = 0;
            for (ShardWriter w : writers) {
                rows += w.stats().rowsWritten();
                appends += w.stats().walAppends();
                walBytes += w.stats().walBytes();
            }
            long flushStart = System.nanoTime();
            drivers.writeEverything();
            drivers.requestPublicationOfAll();
            drivers.awaitPublications();
            long sstables = System.nanoTime() - flushStart;
            return new Ingest(rows, durable, sstables, appends, walBytes);
        } finally {
            drivers.closeAll();
            io.shutdownNow();
        }
    }

    /** Options for an S3-protocol test server at {@code endpoint}: path-style, any credentials. */
    static S3Options s3(URI endpoint) {
        return S3Options.builder()
                .endpoint(endpoint)
                .region("us-east-1")
                .pathStyleAccess(true)
                .staticCredentials("walsink-bench", "walsink-bench")
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
    }

    private static long total(Map<LatencyProxy.Kind, Long> requests) {
        return requests.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Map<LatencyProxy.Kind, Long> difference(
            Map<LatencyProxy.Kind, Long> after, Map<LatencyProxy.Kind, Long> before) {
        Map<LatencyProxy.Kind, Long> d = new EnumMap<>(LatencyProxy.Kind.class);
        after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0L)));
        return d;
    }

    static String render(long rows, int shards, long flushMs, long seed, List<Outcome> outcomes) {
        TextTable table = new TextTable(
                "store",
                ">rows/s",
                ">rows/s per shard",
                ">WAL PUTs per shard per s",
                ">WAL MB",
                ">WAL PUTs per GB",
                ">PUT per GB",
                ">POST per GB",
                ">LIST per GB",
                ">GET per GB",
                ">HEAD per GB",
                ">DELETE per GB",
                ">503 answered",
                ">SSTables s",
                ">replay s",
                ">replayed rows / entries",
                ">replay requests");
        for (Outcome o : outcomes) {
            boolean counted = !o.requests().isEmpty();
            table.row(
                    o.store().name(),
                    Figures.number(o.rowsPerSecond()),
                    Figures.number(o.rowsPerSecond() / o.shards()),
                    Figures.number(o.walPutsPerShardSecond()),
                    Figures.number(o.walBytes() / 1e6),
                    Figures.number(o.walAppends() / (o.walBytes() / 1e9)),
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.PUT)) : "-",
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.POST)) : "-",
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.LIST)) : "-",
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.GET)) : "-",
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.HEAD)) : "-",
                    counted ? Figures.number(o.perGb(LatencyProxy.Kind.DELETE)) : "-",
                    counted ? String.valueOf(o.slowDowns()) : "-",
                    Figures.number(o.sstableNanos() / 1e9),
                    Figures.number(o.replayNanos() / 1e9),
                    o.replayedRows() + " / " + o.replayedEntries(),
                    counted ? String.valueOf(o.replayRequests()) : "-");
        }
        return String.format(
                "%n== Shard engine on local disk and on S3 at real latency: %,d rows into %d shards on one owner"
                        + " thread, %d I/O threads, WAL flush every %d ms (bound: %s PUTs per shard per s), seed %d"
                        + " ==%n%s"
                        + "requests per GB: requests through the proxy while ingesting and writing the SSTables,"
                        + " per GB of WAL entries written (PUT includes the WAL's); the replay is of one shard's"
                        + " share of the rows.%n",
                rows, shards, IO_THREADS, flushMs, Figures.number(1000.0 / flushMs), seed, table.render());
    }
}
