package io.walsink.cli;

import io.walsink.maintenance.TableTags;
import java.io.PrintStream;
import java.util.List;
import java.util.SortedMap;

/** {@code walsink tag create|list|delete}: names for base table versions, printed as done. */
final class TagCommand {
    static final String HELP =
            "Usage: walsink tag create TABLE NAME [--version N] | tag list TABLE | tag delete TABLE NAME\n"
                    + "Tags name base table versions: LanceDB's checkout(NAME), walsink scan --tag NAME and SQL's\n"
                    + "'scan.tag' read them, and the cleanup keeps a tagged version however old.\n"
                    + "  create   tag the latest version, or --version N\n"
                    + "  list     each tag and its version\n"
                    + "  delete   remove the tag (the cleanup may then remove its version)\n";

    private final PrintStream out;

    TagCommand(PrintStream out) {
        this.out = out;
    }

    int run(Args args) {
        List<String> positional = args.positional();
        String action = positional.isEmpty() ? "" : positional.get(0);
        int arity =
                switch (action) {
                    case "create", "delete" -> 3;
                    case "list" -> 2;
                    default -> throw new UsageException("expected create, list or delete, got '" + action + "'");
                };
        if (positional.size() != arity) {
            throw new UsageException("tag " + action + " takes " + (arity == 3 ? "TABLE NAME" : "TABLE") + ", got "
                    + String.join(" ", positional.subList(1, positional.size())));
        }
        if (!action.equals("create") && args.option("version").isPresent()) {
            throw new UsageException("--version is for tag create");
        }
        String path = positional.get(1);
        TableTags tags = TableTags.of(path, args.s3());
        switch (action) {
            case "create" -> {
                Long version = args.option("version").map(TagCommand::version).orElse(null);
                String name = positional.get(2);
                out.println("Tagged version " + tags.create(name, version) + " of " + path + " as '" + name + "'");
            }
            case "delete" -> {
                String name = positional.get(2);
                out.println("Deleted tag '" + name + "' of " + path + " (version " + tags.delete(name) + ")");
            }
            default -> {
                SortedMap<String, Long> all = tags.list();
                all.forEach((name, version) -> out.println(name + " = version " + version));
                out.println("(" + all.size() + (all.size() == 1 ? " tag)" : " tags)"));
            }
        }
        return WalsinkCli.OK;
    }

    /** The value of {@code --version}: a positive number. */
    static long version(String text) {
        try {
            long v = Long.parseLong(text);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException("--version must be a positive number, got '" + text + "'");
    }
}
