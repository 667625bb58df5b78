package io.walsink.cli;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.BitReversedName;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardFieldEntry;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalLog;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.GarbageCollector;
import io.walsink.maintenance.GcSummary;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.read.TableRows;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.PrintStream;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The {@code walsink} command: look at, check and maintain a MemWAL table without Flink.
 *
 * <pre>
 * walsink inspect TABLE [--json]
 * walsink scan TABLE [--mode committed|latest] [--columns a,b] [--where col=value] [--limit N] [--format table|csv|json]
 * walsink verify TABLE
 * walsink compact TABLE
 * walsink gc TABLE [--retention 1h] [--dry-run]
 * </pre>
 *
 * TABLE is a directory, a {@code file://} URI or {@code s3://bucket/prefix} (with {@code
 * --s3-endpoint}, {@code --s3-region} and {@code --s3-path-style} as the sink's options). Exit
 * codes: 0 done, 1 {@code verify} found problems, 2 bad usage or an error.
 */
@PublicEvolving
public final class WalsinkCli {
    public static final int OK = 0;
    public static final int PROBLEMS_FOUND = 1;
    public static final int ERROR = 2;

    private static final String S3_HELP = "  --s3-endpoint URL   S3-compatible endpoint for s3:// tables\n"
            + "  --s3-region NAME    S3 region (default: the AWS region chain)\n"
            + "  --s3-path-style     path-style bucket access (most S3-compatible servers)\n"
            + "Credentials come from the AWS default chain (AWS_ACCESS_KEY_ID, profiles, roles).\n";

    private static final String USAGE = "Usage: walsink COMMAND TABLE [OPTIONS]\n"
            + "Commands:\n"
            + "  inspect   schema, primary key, sharding and the state of every shard\n"
            + "  scan      the table's merged rows\n"
            + "  verify    check the format invariants; exit 1 if any is broken\n"
            + "  compact   merge the shards' SSTables into the base table\n"
            + "  gc        remove what no reader or restore needs any more\n"
            + "TABLE: a directory, file:///dir or s3://bucket/prefix. `walsink COMMAND --help` for a command's options.\n"
            + "Exit codes: 0 ok, 1 problems found (verify), 2 bad usage or error.\n";

    private final PrintStream out;
    private final PrintStream err;

    WalsinkCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int code = new WalsinkCli(System.out, System.err).run(args);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line and returns its exit code. */
    int run(String... argv) {
        if (argv.length == 0 || argv[0].equals("--help") || argv[0].equals("-h") || argv[0].equals("help")) {
            (argv.length == 0 ? err : out).print(USAGE);
            return argv.length == 0 ? ERROR : OK;
        }
        String command = argv[0];
        List<String> rest = Arrays.asList(argv).subList(1, argv.length);
        Command c = command(command);
        if (c == null) {
            err.println("walsink: unknown command '" + command + "'");
            err.print(USAGE);
            return ERROR;
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(c.help + S3_HELP);
            return OK;
        }
        try {
            return c.body.run(Args.parse(rest, c.valued, c.flags));
        } catch (UsageException e) {
            err.println("walsink " + command + ": " + e.getMessage());
            err.print(c.help);
            return ERROR;
        } catch (RuntimeException e) {
            err.println("walsink " + command + ": error: " + describe(e));
            return ERROR;
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        return e.getCause() != null
                        && e.getCause().getMessage() != null
                        && !message.contains(e.getCause().getMessage())
                ? message + " (" + e.getCause().getMessage() + ")"
                : message;
    }

    private interface Body {
        int run(Args args);
    }

    private record Command(String help, Set<String> valued, Set<String> flags, Body body) {}

    private Command command(String name) {
        return switch (name) {
            case "inspect" -> new Command(
                    "Usage: walsink inspect TABLE [--json]\n"
                            + "Schema, primary key and sharding of the table; per shard its bucket, writer epoch,\n"
                            + "manifest version, replay_after position, WAL tip (highest entry written) and SSTables.\n"
                            + "  --json   one JSON object instead of the human-readable report\n",
                    Set.of(),
                    Set.of("json"),
                    this::inspect);
            case "scan" -> new Command(
                    "Usage: walsink scan TABLE [--mode committed|latest] [--columns a,b] [--where col=value]"
                            + " [--limit N] [--format table|csv|json]\n"
                            + "The table's live rows, merged newest-wins per primary key, in key order.\n"
                            + "  --mode committed   base table and published SSTables (default)\n"
                            + "  --mode latest      also every WAL entry after replay_after\n"
                            + "  --columns a,b      only these columns\n"
                            + "  --where col=value  only rows whose column prints as value\n"
                            + "  --limit N          at most N rows\n"
                            + "  --format F         table (default), csv or json (an array of objects)\n",
                    Set.of("mode", "columns", "where", "limit", "format"),
                    Set.of(),
                    this::scan);
            case "verify" -> new Command(
                    "Usage: walsink verify TABLE\n"
                            + "Checks the MemWAL format invariants: manifest versions gap-free above the GC floor,\n"
                            + "WAL positions contiguous, names and SSTable paths inside the table, writer epochs\n"
                            + "never decreasing, listed SSTables present, no temporary files left. One line per\n"
                            + "problem; exit 1 if there is any.\n",
                    Set.of(),
                    Set.of(),
                    this::verify);
            case "compact" -> new Command(
                    "Usage: walsink compact TABLE\n"
                            + "Merges every published SSTable not merged yet into the base table (one compactor per\n"
                            + "table at a time; see docs/operations.md) and prints what it merged.\n",
                    Set.of(),
                    Set.of(),
                    this::compact);
            case "gc" -> new Command(
                    "Usage: walsink gc TABLE [--retention 1h] [--dry-run]\n"
                            + "Removes WAL entries, manifest versions and SSTable folders no reader needs that are\n"
                            + "older than the retention, plus leftovers of interrupted writes; prints a summary.\n"
                            + "  --retention D   keep everything newer than D (e.g. 30m, 1h, 7d, PT2H); default 1h\n"
                            + "  --dry-run       count what would be removed, remove nothing\n",
                    Set.of("retention"),
                    Set.of("dry-run"),
                    this::gc);
            default -> null;
        };
    }

    // ---- inspect ----

    private int inspect(Args args) {
        String path = args.table();
        S3Options s3 = args.s3();
        StorageLocation location = StorageLocation.parse(path);
        TableInfo info = LanceTables.open(location.lanceUri(), LanceStorageOptions.of(location, s3), true);
        List<Map<String, Object>> shards = new ArrayList<>();
        try (ObjectStore store = ObjectStores.open(path, s3)) {
            for (UUID shard : shardIds(store)) {
                shards.add(shardState(store, shard));
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("table", path);
        report.put("version", info.version());
        List<Map<String, Object>> schema = new ArrayList<>();
        for (Field f : info.schema().getFields()) {
            Map<String, Object> column = new LinkedHashMap<>();
            column.put("name", f.getName());
            column.put("type", f.getType().toString());
            column.put("nullable", f.isNullable());
            schema.add(column);
        }
        report.put("schema", schema);
        report.put("primary_key", info.primaryKey());
        TableSharding sharding = info.sharding().sharding();
        Map<String, Object> sh = new LinkedHashMap<>();
        sh.put("transform", sharding.transform().name().toLowerCase(Locale.ROOT));
        sh.put("column", sharding.sourceColumn().orElse(null));
        sh.put(
                "buckets",
                sharding.numBuckets().isPresent() ? sharding.numBuckets().getAsInt() : null);
        report.put("sharding", sh);
        report.put("shards", shards);
        if (args.flag("json")) {
            out.println(Json.write(report));
            return OK;
        }
        out.println("Table        " + path + " (version " + info.version() + ")");
        out.println("Primary key  " + (info.primaryKey().isEmpty() ? "(none: append-only)" : info.primaryKey()));
        out.println("Sharding     " + sh.get("transform")
                + (sharding.sourceColumn().isPresent()
                        ? " on " + sharding.sourceColumn().get() + " into " + sh.get("buckets") + " buckets"
                        : ""));
        out.println("Schema");
        for (Map<String, Object> column : schema) {
            out.println("  " + column.get("name") + " " + column.get("type")
                    + (Boolean.TRUE.equals(column.get("nullable")) ? "" : " NOT NULL"));
        }
        out.println("Shards       " + shards.size());
        List<String> header =
                List.of("shard", "bucket", "epoch", "manifest", "replay_after", "wal_tip", "sstables", "status");
        List<List<String>> rows = new ArrayList<>();
        for (Map<String, Object> s : shards) {
            rows.add(header.stream()
                    .map(h -> s.get(h) == null ? "-" : String.valueOf(s.get(h)))
                    .toList());
        }
        printTable(header, rows);
        return OK;
    }

    private static Map<String, Object> shardState(ObjectStore store, UUID shard) {
        Optional<ShardManifest> latest = new ManifestStore(store, shard).readLatest();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("shard", shard.toString());
        s.put(
                "bucket",
                latest.flatMap(m -> m.shardFieldEntries().stream()
                                .filter(e -> e.fieldId().equals(ShardFieldEntry.BUCKET_FIELD_ID))
                                .findFirst())
                        .map(e -> e.int32Value().isPresent()
                                ? (Object) e.int32Value().getAsInt()
                                : null)
                        .orElse(null));
        s.put("epoch", latest.map(ShardManifest::writerEpoch).orElse(0L));
        s.put("manifest", latest.map(ShardManifest::version).orElse(0L));
        s.put(
                "replay_after",
                latest.map(ShardManifest::replayAfterWalEntryPosition).orElse(0L));
        s.put("wal_tip", walTip(store, shard));
        s.put("sstables", latest.map(m -> m.sstables().size()).orElse(0));
        s.put("status", latest.map(m -> m.isSealed() ? "sealed" : "active").orElse("unclaimed"));
        return s;
    }

    private static long walTip(ObjectStore store, UUID shard) {
        String prefix = WalLog.walPrefix(shard);
        long highest = 0;
        for (ObjectMeta meta : store.listAll(prefix)) {
            OptionalLong p = BitReversedName.parseWalEntryPosition(meta.key().substring(prefix.length()));
            if (p.isPresent()) {
                highest = Math.max(highest, p.getAsLong());
            }
        }
        return highest;
    }

    private static TreeSet<UUID> shardIds(ObjectStore store) {
        TreeSet<UUID> shards = new TreeSet<>();
        for (ObjectMeta meta : store.listAll("_mem_wal/")) {
            String[] parts = meta.key().split("/");
            if (parts.length >= 3) {
                ManifestStore.parseShardFolder(parts[1]).ifPresent(shards::add);
            }
        }
        return shards;
    }

    // ---- scan ----

    private int scan(Args args) {
        String path = args.table();
        ReadMode mode =
                switch (args.option("mode").orElse("committed")) {
                    case "committed" -> ReadMode.COMMITTED;
                    case "latest" -> ReadMode.LATEST;
                    default -> throw new UsageException("--mode must be committed or latest");
                };
        String format = args.option("format").orElse("table");
        if (!Set.of("table", "csv", "json").contains(format)) {
            throw new UsageException("--format must be table, csv or json");
        }
        long limit = Long.MAX_VALUE;
        if (args.option("limit").isPresent()) {
            try {
                limit = Long.parseLong(args.option("limit").get());
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 0) {
                throw new UsageException("--limit must be a non-negative number");
            }
        }
        String[] where = null;
        if (args.option("where").isPresent()) {
            String w = args.option("where").get();
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--where takes column=value, got '" + w + "'");
            }
            where = new String[] {w.substring(0, eq), w.substring(eq + 1)};
        }
        TableRows rows;
        try (TableReader reader = TableReader.open(path, args.s3())) {
            rows = reader.read(mode);
        }
        List<String> columns = rows.columns();
        if (args.option("columns").isPresent()) {
            columns = Arrays.stream(args.option("columns").get().split(","))
                    .map(String::trim)
                    .toList();
            for (String c : columns) {
                if (!rows.columns().contains(c)) {
                    throw new UsageException("no column '" + c + "'; columns: " + String.join(",", rows.columns()));
                }
            }
        }
        if (where != null && !rows.columns().contains(where[0])) {
            throw new UsageException("no column '" + where[0] + "'; columns: " + String.join(",", rows.columns()));
        }
        List<Map<String, Object>> selected = new ArrayList<>();
        for (Map<String, Object> row : rows.rows()) {
            if (selected.size() >= limit) {
                break;
            }
            if (where != null && !Json.text(row.get(where[0])).equals(where[1])) {
                continue;
            }
            Map<String, Object> projected = new LinkedHashMap<>();
            for (String c : columns) {
                projected.put(c, row.get(c));
            }
            selected.add(projected);
        }
        switch (format) {
            case "json" -> out.println(Json.write(selected));
            case "csv" -> {
                out.println(
                        String.join(",", columns.stream().map(WalsinkCli::csv).toList()));
                for (Map<String, Object> row : selected) {
                    out.println(String.join(
                            ",",
                            row.values().stream()
                                    .map(v -> v == null ? "" : csv(Json.text(v)))
                                    .toList()));
                }
            }
            default -> {
                List<List<String>> cells = new ArrayList<>();
                for (Map<String, Object> row : selected) {
                    cells.add(row.values().stream()
                            .map(v -> v == null ? "null" : Json.text(v))
                            .toList());
                }
                printTable(columns, cells);
                out.println("(" + selected.size() + (selected.size() == 1 ? " row)" : " rows)"));
            }
        }
        return OK;
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
                ? "\"" + s.replace("\"", "\"\"") + "\""
                : s;
    }

    private void printTable(List<String> header, List<List<String>> rows) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println(line(header, widths));
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            rule.append(i > 0 ? "  " : "").append("-".repeat(widths[i]));
        }
        out.println(rule);
        for (List<String> row : rows) {
            out.println(line(row, widths));
        }
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append("  ");
            }
            b.append(cells.get(i));
            if (i < cells.size() - 1) {
                b.append(" ".repeat(widths[i] - cells.get(i).length()));
            }
        }
        return b.toString();
    }

    // ---- verify ----

    private int verify(Args args) {
        String path = args.table();
        S3Options s3 = args.s3();
        StorageLocation location = StorageLocation.parse(path);
        List<String> problems;
        try (ObjectStore store = ObjectStores.open(path, s3)) {
            problems = new TableVerifier(store, location.lanceUri(), LanceStorageOptions.of(location, s3)).verify();
        }
        problems.forEach(out::println);
        if (problems.isEmpty()) {
            out.println("OK: " + path + " satisfies the format invariants");
            return OK;
        }
        out.println(problems.size() + (problems.size() == 1 ? " problem" : " problems") + " found in " + path);
        return PROBLEMS_FOUND;
    }

    // ---- compact and gc ----

    private int compact(Args args) {
        String path = args.table();
        CompactionResult result = Compactor.compact(path, args.s3(), CompactorOptions.defaults());
        for (CompactionResult.ShardResult s : result.shards()) {
            out.println("shard " + s.shardId() + ": merged generations " + s.mergedGenerations() + " ("
                    + s.rowsUpserted() + " rows upserted, " + s.keysDeleted() + " keys deleted), merged through "
                    + s.mergedThrough()
                    + s.stoppedBecause().map(r -> "; stopped at " + r).orElse(""));
        }
        out.println("Compacted " + path + ": " + result.mergedGenerations() + " generations merged over "
                + result.shards().size() + " shards in " + result.duration().toMillis() + " ms, base version "
                + result.baseVersion());
        return OK;
    }

    private int gc(Args args) {
        String path = args.table();
        Duration retention = parseDuration(args.option("retention").orElse("1h"));
        boolean dryRun = args.flag("dry-run");
        GcSummary s;
        try (ObjectStore store = ObjectStores.open(path, args.s3())) {
            s = new GarbageCollector(
                            store, GarbageCollector.Options.retaining(retention).dryRun(dryRun))
                    .collect();
        }
        out.println((dryRun ? "Dry run, would remove" : "Removed") + " from " + path + " (retention " + retention
                + ", " + s.shards() + " shards): " + s.walEntries() + " WAL entries, " + s.manifestVersions()
                + " manifest versions, " + s.ssTableFolders() + " SSTable folders, " + s.temporaryFiles()
                + " temporary files, " + s.jobRecords() + " job records; " + s.objects() + " objects, " + s.bytes()
                + " bytes");
        return OK;
    }

    /** {@code 30s}, {@code 15m}, {@code 1h}, {@code 7d}, or ISO-8601 such as {@code PT2H}. */
    static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return nonNegative(Duration.parse(text.trim()), text);
            }
            int unit = t.length() - 1;
            while (unit > 0 && Character.isLetter(t.charAt(unit - 1))) {
                unit--;
            }
            if (unit <= 0 || unit >= t.length() && !t.matches("\\d+")) {
                throw new UsageException("not a duration: '" + text + "' (use e.g. 30m, 1h, 7d or PT2H)");
            }
            long n = Long.parseLong(t.substring(0, unit).trim());
            Duration d =
                    switch (t.substring(unit)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s", "sec", "secs" -> Duration.ofSeconds(n);
                        case "m", "min", "mins" -> Duration.ofMinutes(n);
                        case "h", "hour", "hours" -> Duration.ofHours(n);
                        case "d", "day", "days" -> Duration.ofDays(n);
                        default -> throw new UsageException(
                                "not a duration: '" + text + "' (use e.g. 30m, 1h, 7d or PT2H)");
                    };
            return nonNegative(d, text);
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new UsageException("not a duration: '" + text + "' (use e.g. 30m, 1h, 7d or PT2H)");
        }
    }

    private static Duration nonNegative(Duration d, String text) {
        if (d.isNegative()) {
            throw new UsageException("the retention must not be negative: " + text);
        }
        return d;
    }
}
