package io.walsink.cli;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.RollbackResult;
import io.walsink.maintenance.TableRollback;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.maintenance.gc.GcSummary;
import io.walsink.maintenance.migration.ShardIdMigration;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.PrintStream;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The {@code walsink} command: look at, check and maintain a MemWAL table without Flink.
 *
 * <pre>
 * walsink inspect TABLE [--json]
 * walsink scan TABLE [--mode committed|latest] [--columns a,b] [--where col=value] [--limit N] [--format table|csv|json]
 *              [--version N | --tag NAME | --timestamp T]
 * walsink tag create TABLE NAME [--version N] | tag list TABLE | tag delete TABLE NAME
 * walsink verify TABLE
 * walsink compact TABLE
 * walsink gc TABLE [--retention 1h] [--consumer-expiration 1d] [--dry-run]
 * walsink migrate-shard-ids TABLE [--dry-run]
 * walsink rollback TABLE --version N | --tag NAME [--force]
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
            + "  tag       create, list or delete the names of base table versions\n"
            + "  rollback  make the table read as a base table version again\n"
            + "  migrate-shard-ids  move shards under the legacy ids of earlier releases to the ids Lance's writers use\n"
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

    /**
     * Runs one command line as {@code walsink} would, printing to {@code out} and {@code err}
     * instead of the process's streams; returns the exit code (for embedding and tests).
     */
    public static int execute(PrintStream out, PrintStream err, String... argv) {
        return new WalsinkCli(out, err).run(argv);
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
                    args -> new InspectCommand(out).run(args));
            case "scan" -> new Command(
                    "Usage: walsink scan TABLE [--mode committed|latest] [--columns a,b] [--where col=value]"
                            + " [--limit N] [--format table|csv|json] [--version N | --tag NAME | --timestamp T]\n"
                            + "The table's live rows, merged newest-wins per primary key, in key order.\n"
                            + "  --mode committed   base table and published SSTables (default)\n"
                            + "  --mode latest      also every WAL entry after replay_after\n"
                            + "  --columns a,b      only these columns\n"
                            + "  --where col=value  only rows whose column prints as value\n"
                            + "  --limit N          at most N rows\n"
                            + "  --format F         table (default), csv or json (an array of objects)\n"
                            + "  --version N        time travel: base table version N alone (what compaction had\n"
                            + "                     merged), as LanceDB's checkout(N); --tag NAME: the version a tag\n"
                            + "                     names; --timestamp T: the latest version committed at or before T\n"
                            + "                     (epoch milliseconds or ISO-8601 with offset, 2026-01-01T00:00:00Z)\n",
                    Set.of("mode", "columns", "where", "limit", "format", "version", "tag", "timestamp"),
                    Set.of(),
                    args -> new ScanCommand(out).run(args));
            case "tag" -> new Command(
                    TagCommand.HELP, Set.of("version"), Set.of(), args -> new TagCommand(out).run(args));
            case "verify" -> new Command(
                    "Usage: walsink verify TABLE\n"
                            + "Checks the MemWAL format invariants: manifest versions gap-free above the GC floor,\n"
                            + "WAL positions contiguous, names and SSTable paths inside the table, writer epochs\n"
                            + "never decreasing across manifest versions and along the WAL (every WAL entry is read\n"
                            + "and must decode in a supported schema profile), listed SSTables present, no temporary\n"
                            + "files left. One line per problem; exit 1 if there is any.\n",
                    Set.of(),
                    Set.of(),
                    this::verify);
            case "compact" -> new Command(
                    "Usage: walsink compact TABLE\n"
                            + "Merges every published SSTable not merged yet into the base table and prints what it\n"
                            + "merged. Progress (each generation merged) goes to stderr. One compactor per table at a\n"
                            + "time: while another (a job's, or another compact) holds the table's compaction lease,\n"
                            + "this one is refused with the holder's name; see docs/operations.md.\n",
                    Set.of(),
                    Set.of(),
                    this::compact);
            case "gc" -> new Command(
                    "Usage: walsink gc TABLE [--retention 1h] [--consumer-expiration 1d] [--dry-run]\n"
                            + "Removes WAL entries, manifest versions and SSTable folders no reader needs that are\n"
                            + "older than the retention, plus leftovers of interrupted writes; prints a summary.\n"
                            + "Progress (each shard collected) goes to stderr.\n"
                            + "  --retention D   keep everything newer than D (e.g. 30m, 1h, 7d, PT2H); default 1h\n"
                            + "  --consumer-expiration D\n"
                            + "                  keep what a continuous read's consumer record needs while the\n"
                            + "                  record is newer than D (as sink.gc.consumer-expiration); default 1d\n"
                            + "  --dry-run       count what would be removed, remove nothing\n",
                    Set.of("retention", "consumer-expiration"),
                    Set.of("dry-run"),
                    this::gc);
            case "migrate-shard-ids" -> new Command(
                    "Usage: walsink migrate-shard-ids TABLE [--dry-run]\n"
                            + "Moves the shards that earlier flink-walsink releases named by their own ids to\n"
                            + "the ids Lance's writers derive for their buckets, so that a LanceDB writer and walsink\n"
                            + "write one shard per bucket. Stop every job writing the table first (stop-with-savepoint);\n"
                            + "its savepoints and checkpoints restore into the new release afterwards. Holds the\n"
                            + "compaction lease while it runs; a rerun after a failure continues. Progress on stderr.\n"
                            + "  --dry-run       print the moves, change nothing\n",
                    Set.of(),
                    Set.of("dry-run"),
                    this::migrateShardIds);
            case "rollback" -> new Command(
                    "Usage: walsink rollback TABLE --version N | --tag NAME [--force]\n"
                            + "Makes every reader read base table version N (or the version a tag names) alone;\n"
                            + "writes go on from there. Refused while a shard holds rows only in its WAL (a job\n"
                            + "writes the table, or stopped without a savepoint) and while a compaction, collection or\n"
                            + "restore holds the compaction lease. A running job is fenced, and its checkpoints taken\n"
                            + "before cannot be restored: start it without state. A rerun finishes an interrupted one.\n"
                            + "  --force   drop the rows shards hold only in their WAL instead of refusing\n",
                    Set.of("version", "tag"),
                    Set.of("force"),
                    this::rollback);
            default -> null;
        };
    }

    private int rollback(Args args) {
        String path = args.table();
        Optional<String> version = args.option("version");
        Optional<String> tag = args.option("tag");
        if (version.isPresent() == tag.isPresent()) {
            throw new UsageException("rollback takes one of --version N and --tag NAME");
        }
        TableRollback rollback = TableRollback.of(path, args.s3());
        RollbackResult result = version.isPresent()
                ? rollback.toVersion(TagCommand.version(version.get()), args.flag("force"))
                : rollback.toTag(tag.get(), args.flag("force"));
        result.describe(path).forEach(out::println);
        return OK;
    }

    // ---- verify ----

    private int verify(Args args) {
        String path = args.table();
        S3Options s3 = args.s3();
        List<String> problems;
        try (ObjectStore store = ObjectStores.open(path, s3)) {
            problems = new TableVerifier(TableLocation.of(store, path, s3)).verify();
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
        result.describe(path).forEach(out::println);
        return OK;
    }

    private int gc(Args args) {
        String path = args.table();
        Duration retention = parseDuration(args.option("retention").orElse("1h"));
        Duration expiration = parseDuration(args.option("consumer-expiration").orElse("1d"));
        if (expiration.isZero()) {
            throw new UsageException("--consumer-expiration must be positive");
        }
        boolean dryRun = args.flag("dry-run");
        // The collector only lists objects; a mistyped path would be an empty, "collected" table.
        StorageLocation location = StorageLocation.parse(path);
        LanceTables.open(location.lanceUri(), LanceStorageOptions.of(location, args.s3()), true);
        GarbageCollector.Options options = GarbageCollector.Options.retaining(retention)
                .consumerExpiration(expiration)
                .dryRun(dryRun);
        GcSummary s;
        try (ObjectStore store = ObjectStores.open(path, args.s3())) {
            s = new GarbageCollector(store, options).collect();
        }
        out.println(s.describe(path, options.retention(), options.consumerExpiration()));
        return OK;
    }

    private int migrateShardIds(Args args) {
        String path = args.table();
        boolean dryRun = args.flag("dry-run");
        List<ShardIdMigration.Move> moves;
        try (ObjectStore store = ObjectStores.open(path, args.s3());
                BufferAllocator allocator = new RootAllocator()) {
            ShardIdMigration migration = new ShardIdMigration(TableLocation.of(store, path, args.s3()), allocator);
            moves = dryRun ? migration.plan() : migration.run(err::println);
        }
        for (ShardIdMigration.Move m : moves) {
            out.println("bucket " + m.bucket() + ": shard " + m.from() + (dryRun ? " would move to " : " moved to ")
                    + m.to());
        }
        out.println((moves.isEmpty() ? "Nothing to migrate in " : (dryRun ? "Dry run, would migrate " : "Migrated "))
                + (moves.isEmpty() ? path + ": every shard has Lance's id" : moves.size() + " shards of " + path));
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
            throw new UsageException("a duration must not be negative: " + text);
        }
        return d;
    }
}
