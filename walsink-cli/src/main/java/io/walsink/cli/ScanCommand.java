package io.walsink.cli;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.read.TableRows;
import io.walsink.read.snapshot.VersionAtTime;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/** {@code walsink scan}: the merged rows, selected and formatted. */
final class ScanCommand {
    private final PrintStream out;

    ScanCommand(PrintStream out) {
        this.out = out;
    }

    int run(Args args) {
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
        Function<TableReader, TableRows> read = timeTravel(args, mode);
        TableRows rows;
        // Only the WAL tail (LATEST) is decoded with a profile; committed rows are Lance datasets.
        WalSchemaProfile profile =
                mode == ReadMode.LATEST ? WalProfileDetector.detect(path, args.s3()) : WalSchemaProfile.SPEC;
        try (TableReader reader = TableReader.open(path, args.s3(), profile)) {
            rows = read.apply(reader);
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
                        String.join(",", columns.stream().map(ScanCommand::csv).toList()));
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
                new TextTable(out).print(columns, cells);
                out.println("(" + selected.size() + (selected.size() == 1 ? " row)" : " rows)"));
            }
        }
        return WalsinkCli.OK;
    }

    /** How to read: the table now in {@code mode}, or one base table version (--version, --tag, --timestamp). */
    private static Function<TableReader, TableRows> timeTravel(Args args, ReadMode mode) {
        List<String> given = Stream.of("version", "tag", "timestamp")
                .filter(o -> args.option(o).isPresent())
                .toList();
        if (given.isEmpty()) {
            return reader -> reader.read(mode);
        }
        if (given.size() > 1) {
            throw new UsageException(
                    "give one of --version, --tag and --timestamp, not --" + String.join(" and --", given));
        }
        if (args.option("mode").isPresent()) {
            throw new UsageException("--" + given.get(0) + " reads one base table version; it takes no --mode");
        }
        String value = args.option(given.get(0)).orElseThrow();
        switch (given.get(0)) {
            case "version" -> {
                long version = TagCommand.version(value);
                return reader -> reader.readVersion(version);
            }
            case "tag" -> {
                return reader -> reader.readTag(value);
            }
            default -> {
                Instant at;
                try {
                    at = VersionAtTime.parse(value);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--timestamp: " + e.getMessage());
                }
                return reader -> reader.readAt(at);
            }
        }
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
                ? "\"" + s.replace("\"", "\"\"") + "\""
                : s;
    }
}
