package io.walsink.cli;

import io.walsink.annotation.Internal;
import io.walsink.storage.S3Options;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A command's arguments: positional ones and {@code --name value} / {@code --name=value} options.
 * Flags (options without a value) are declared by the command; unknown options are usage errors.
 */
@Internal
final class Args {
    /** Options every command takes: the object store of an {@code s3://} table. */
    static final Set<String> S3_OPTIONS = Set.of("s3-endpoint", "s3-region");

    static final Set<String> S3_FLAGS = Set.of("s3-path-style");

    private final List<String> positional = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();

    private Args() {}

    /**
     * @param valued options that take a value
     * @param flags options without a value
     * @throws UsageException for an unknown option or one without its value
     */
    static Args parse(List<String> args, Set<String> valued, Set<String> flags) {
        Args parsed = new Args();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.equals("--")) {
                parsed.positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flags.contains(name) || S3_FLAGS.contains(name)) {
                if (value != null && !value.equals("true") && !value.equals("false")) {
                    throw new UsageException("--" + name + " takes no value (or true/false), got '" + value + "'");
                }
                parsed.options.put(name, value == null ? "true" : value);
            } else if (valued.contains(name) || S3_OPTIONS.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException("--" + name + " needs a value");
                    }
                    value = args.get(++i);
                }
                parsed.options.put(name, value);
            } else {
                throw new UsageException("unknown option --" + name);
            }
        }
        return parsed;
    }

    List<String> positional() {
        return positional;
    }

    /** The one positional argument, the table path. */
    String table() {
        if (positional.size() != 1) {
            throw new UsageException(
                    positional.isEmpty() ? "missing TABLE" : "expected one TABLE, got " + String.join(" ", positional));
        }
        return positional.get(0);
    }

    Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name));
    }

    boolean flag(String name) {
        return "true".equals(options.get(name));
    }

    S3Options s3() {
        S3Options.Builder b = S3Options.builder();
        option("s3-endpoint").ifPresent(b::endpoint);
        option("s3-region").ifPresent(b::region);
        if (flag("s3-path-style")) {
            b.pathStyleAccess(true);
        }
        return b.build();
    }
}
