package io.walsink.bench.engine;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.storage.S3Options;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The shard engine beside lance-core 7.0.0's own MemWAL writer on the same Arrow batches (local
 * disk), then the replay of a shard's WAL by a reopening writer: MB/s of WAL bytes, beside
 * reading and decoding the same entries, and the allocator's peak against the WAL payload.
 */
public final class EngineReport {
    private static final String LANCE_FAST = "lance-core non-durable";
    /** The production path: the Flink operator hands each row to the memtable (RowWriter). */
    private static final String WALSINK_ROWS = "walsink row by row, durable every tick";
    /** The batch path ({@code put} of each Arrow batch), as tools use it. */
    private static final String WALSINK = "walsink batch puts, durable every tick";

    private static final String LANCE_DURABLE = "lance-core durable";

    /** Where each run's new table goes: {@code root} null for a temporary folder. */
    record Where(String root, S3Options s3) {
        BenchTable table(BufferAllocator allocator, ShardWriterConfig config) {
            return BenchTable.create(root, s3, allocator, config, EngineBatches.SCHEMA, EngineBatches.KEY);
        }

        String describe() {
            return root == null ? "local disk" : root + (s3.endpoint() == null ? "" : " at " + s3.endpoint());
        }
    }

    private EngineReport() {}

    public static String report(Flags f) {
        long rows = f.positive("--rows");
        long keys = f.positive("--keys");
        int batchRows = f.positiveInt("--batch-rows");
        int rounds = f.positiveInt("--rounds");
        long interval = f.positive("--interval-ms");
        long seed = Long.parseLong(f.get("--seed"));
        Where where = where(f);
        StringBuilder out = new StringBuilder();
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, rows, batchRows, keys, seed);
            try {
                long payload = EngineBatches.bufferBytes(batches);
                out.append(String.format(
                        "%n== Shard engine beside lance-core 7.0.0: %,d rows in %,d-row batches, %,d keys (seed %d),"
                                + " %s, WAL flush every %d ms ==%n",
                        rows, batchRows, keys, seed, where.describe(), interval));
                out.append(writers(where, allocator, batches, rows, payload, rounds, interval));
                out.append(String.format(
                        "%n== WAL replay: a new writer opens a shard whose WAL holds the same rows ==%n"));
                out.append(replay(where, allocator, batches, rounds, f.positiveInt("--entry-rows")));
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
        return out.toString();
    }

    private static Where where(Flags f) {
        String root = f.get("--path");
        if (root.isEmpty()) {
            return new Where(null, S3Options.defaults());
        }
        S3Options.Builder s3 =
                S3Options.builder().region(f.get("--s3-region")).pathStyleAccess(f.on("--s3-path-style"));
        if (!f.get("--s3-endpoint").isEmpty()) {
            s3.endpoint(f.get("--s3-endpoint"));
        }
        return new Where(root, s3.build());
    }

    private static String writers(
            Where where,
            BufferAllocator allocator,
            List<VectorSchemaRoot> batches,
            long rows,
            long payload,
            int rounds,
            long interval) {
        ShardWriterConfig ours = ShardWriterConfig.builder()
                .flushInterval(Duration.ofMillis(interval))
                .memtableMaxRows(2 * rows + 1) // neither writer freezes or writes an SSTable while timed
                .build();
        TextTable runs = new TextTable(
                ">round",
                "writer",
                ">rows/s to last put",
                ">rows/s to durable",
                ">WAL writes",
                ">WAL MB",
                ">cores busy (puts)",
                ">ratio (puts)",
                ">ratio (puts per CPU s)",
                ">ratio (durable)");
        Map<String, List<Double>> putRatios = new LinkedHashMap<>();
        Map<String, List<Double>> cpuRatios = new LinkedHashMap<>();
        Map<String, List<Double>> durableRatios = new LinkedHashMap<>();
        List<Double> rowsOverBatches = new ArrayList<>();
        List<String> order = List.of(LANCE_FAST, WALSINK_ROWS, WALSINK, LANCE_DURABLE);
        // Warm-up, not reported: the JIT and lance-core's native library see every path once
        // before the first timed run, so round 1 does not favour whichever writer runs last.
        List<VectorSchemaRoot> warmup = batches.subList(0, Math.max(1, batches.size() / 10));
        long warmupRows =
                warmup.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        for (String writer : order) {
            runOne(where, writer, allocator, warmup, warmupRows, payload, ours, interval);
        }
        for (int round = 1; round <= rounds; round++) {
            List<String> thisRound = new ArrayList<>(order);
            if (round % 2 == 0) {
                Collections.reverse(thisRound);
            }
            Map<String, double[]> rates = new LinkedHashMap<>();
            for (String writer : thisRound) {
                rates.put(writer, runOne(where, writer, allocator, batches, rows, payload, ours, interval));
            }
            rowsOverBatches.add(rates.get(WALSINK_ROWS)[0] / rates.get(WALSINK)[0]);
            for (String writer : order) {
                double[] r = rates.get(writer);
                double puts = r[0] / rates.get(LANCE_FAST)[0];
                double durable = r[1] / rates.get(LANCE_DURABLE)[1]; // NaN for lance-core non-durable
                // rows per CPU-second = rows/s over cores busy
                double perCpu = (r[0] / r[4]) / (rates.get(LANCE_FAST)[0] / rates.get(LANCE_FAST)[4]);
                putRatios.computeIfAbsent(writer, w -> new ArrayList<>()).add(puts);
                cpuRatios.computeIfAbsent(writer, w -> new ArrayList<>()).add(perCpu);
                durableRatios.computeIfAbsent(writer, w -> new ArrayList<>()).add(durable);
                runs.row(
                        round,
                        writer,
                        Figures.number(r[0]),
                        Figures.number(r[1]),
                        Figures.count((long) r[2]),
                        Figures.number(r[3] / 1e6),
                        Figures.number(r[4]),
                        Figures.ratio(puts),
                        Figures.ratio(perCpu),
                        Figures.ratio(durable));
            }
        }
        TextTable summary = new TextTable(
                "writer",
                ">puts vs lance-core non-durable: median (min-max)",
                ">per CPU s: median (min-max)",
                ">durable vs lance-core durable: median (min-max)",
                ">rounds");
        putRatios.forEach((writer, values) -> summary.row(
                writer,
                Spread.of(values).text(),
                Spread.of(cpuRatios.get(writer)).text(),
                Spread.of(durableRatios.get(writer)).text(),
                values.size()));
        return runs.render()
                + "ratio (puts): over lance-core non-durable's rows/s to last put; ratio (durable): over lance-core"
                + " durable's rows/s until every row is in the WAL (lance-core non-durable has no such time);"
                + " cores busy: the process's CPU time over the wall time until the last put (background threads"
                + " included); ratio (puts per CPU s): rows per CPU-second over lance-core non-durable's\n\n"
                + summary.render()
                + "walsink's row path against its batch path, rows/s to the last put (goal >= 0.7x): "
                + Spread.of(rowsOverBatches).text() + "\n";
    }

    /**
     * {rows/s to the last put, rows/s until every row was in the WAL, WAL writes, WAL bytes, cores
     * busy until the last put}.
     */
    private static double[] runOne(
            Where where,
            String writer,
            BufferAllocator allocator,
            List<VectorSchemaRoot> batches,
            long rows,
            long payload,
            ShardWriterConfig ours,
            long interval) {
        try (BenchTable table = where.table(allocator, ours)) {
            if (writer.equals(WALSINK) || writer.equals(WALSINK_ROWS)) {
                try (TickedShardWrites driver = new TickedShardWrites();
                        ShardWriter shard = table.openShard()) {
                    TickedShardWrites.Timing t = driver.run(
                            shard,
                            batches,
                            writer.equals(WALSINK) ? TickedShardWrites.Path.BATCH : TickedShardWrites.Path.ROW_BY_ROW);
                    check(writer, rows, shard.stats().rowsWritten());
                    return new double[] {
                        perSecond(rows, t.putNanos()),
                        perSecond(rows, t.durableNanos()),
                        t.walAppends(),
                        t.walBytes(),
                        cores(t.putCpuNanos(), t.putNanos())
                    };
                }
            }
            boolean durable = writer.equals(LANCE_DURABLE);
            LanceCoreWrites.Timing t = LanceCoreWrites.run(
                    allocator,
                    table.uri(),
                    table.storageOptions(),
                    durable,
                    LanceCoreWrites.config(durable, interval, rows, payload),
                    batches);
            check(writer, rows, t.memtableRows());
            return new double[] {
                perSecond(rows, t.putNanos()),
                t.durableNanos() < 0 ? Double.NaN : perSecond(rows, t.durableNanos()),
                t.walFlushes(),
                t.walFlushBytes(),
                cores(t.putCpuNanos(), t.putNanos())
            };
        }
    }

    private static String replay(
            Where where, BufferAllocator allocator, List<VectorSchemaRoot> batches, int rounds, int entryRows) {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .memtableMaxRows(2L * batches.size() * batches.get(0).getRowCount() + 1)
                .build();
        try (BenchTable table = where.table(allocator, config)) {
            WalReplayRun.Written written = WalReplayRun.write(table, batches, entryRows);
            double mb = written.walBytes() / 1e6;
            TextTable runs = new TextTable(
                    ">round",
                    ">read MB/s",
                    ">read+decode MB/s",
                    ">replay MB/s",
                    ">replay / decode",
                    ">decode CPU ms/MB",
                    ">replay CPU ms/MB: opener",
                    ">process",
                    ">Arrow peak MB",
                    ">peak / payload",
                    ">lance-core replay MB/s",
                    ">rows/s vs lance-core");
            List<Double> vsDecode = new ArrayList<>();
            List<Double> peaks = new ArrayList<>();
            List<Double> replayRates = new ArrayList<>();
            List<Double> vsLance = new ArrayList<>();
            List<Double> openerCpu = new ArrayList<>();
            List<Double> processCpu = new ArrayList<>();
            long lanceWalBytes = 0;
            for (int round = 1; round <= rounds; round++) {
                long read = WalReplayRun.readNanos(table, written.shardId());
                WalReplayRun.Decoded decoded = WalReplayRun.decode(table, written.shardId());
                long decode = decoded.nanos();
                WalReplayRun.Reopened r = WalReplayRun.reopen(table, written.shardId());
                check("replay", written.rows(), r.rows());
                LanceCoreReplayRun.Replayed l = LanceCoreReplayRun.run(table, batches, entryRows);
                check("lance-core replay", written.rows(), l.rows());
                lanceWalBytes = l.walBytes();
                vsLance.add((double) l.nanos() / r.nanos()); // the same rows: time ratio is the rows/s ratio
                double replayRate = mb / (r.nanos() / 1e9);
                double decodeRate = mb / (decode / 1e9);
                double peak = (double) r.peakBytes() / written.walBytes();
                vsDecode.add(replayRate / decodeRate);
                peaks.add(peak);
                replayRates.add(replayRate);
                openerCpu.add(r.openerCpuNanos() / 1e6 / mb);
                processCpu.add(r.processCpuNanos() / 1e6 / mb);
                runs.row(
                        round,
                        Figures.number(mb / (read / 1e9)),
                        Figures.number(decodeRate),
                        Figures.number(replayRate),
                        Figures.ratio(replayRate / decodeRate),
                        String.format("%.2f", decoded.cpuNanos() / 1e6 / mb),
                        String.format("%.2f", openerCpu.get(openerCpu.size() - 1)),
                        String.format("%.2f", processCpu.get(processCpu.size() - 1)),
                        Figures.number(r.peakBytes() / 1e6),
                        Figures.ratio(peak),
                        Figures.number(l.walBytes() / 1e6 / (l.nanos() / 1e9)),
                        Figures.ratio(vsLance.get(vsLance.size() - 1)));
            }
            return String.format(
                            "WAL: %,d rows in %,d entries, %s MB (payload); each round reads the entries, reads and"
                                    + " decodes them, then reopens the shard with a fresh allocator%n",
                            written.rows(), written.entries(), Figures.number(mb))
                    + runs.render()
                    + String.format(
                            "replay MB/s median %s (min %s, max %s); replay / decode %s; replay CPU ms/MB, opener"
                                    + " thread %s, process %s (comparable on a busy machine); Arrow peak / payload %s;"
                                    + " rows/s against lance-core 7.0.0 reopening a writer of its own WAL (%s MB,"
                                    + " one entry per %,d-row durable put) %s%n",
                            Figures.number(Spread.of(replayRates).median()),
                            Figures.number(Spread.of(replayRates).min()),
                            Figures.number(Spread.of(replayRates).max()),
                            Spread.of(vsDecode).text(),
                            cpuText(Spread.of(openerCpu)),
                            cpuText(Spread.of(processCpu)),
                            Spread.of(peaks).text(),
                            Figures.number(lanceWalBytes / 1e6),
                            entryRows,
                            Spread.of(vsLance).text());
        }
    }

    /** A writer that lost rows would look fast: every run must account for every row. */
    private static void check(String what, long expected, long actual) {
        if (expected != actual) {
            throw new IllegalStateException(what + " holds " + actual + " rows, expected " + expected);
        }
    }

    private static String cpuText(Spread s) {
        return String.format("%.2f (%.2f-%.2f)", s.median(), s.min(), s.max());
    }

    private static double cores(long cpuNanos, long wallNanos) {
        return (double) cpuNanos / wallNanos;
    }

    private static double perSecond(long rows, long nanos) {
        return rows / (nanos / 1e9);
    }
}
