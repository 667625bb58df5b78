package io.walsink.bench.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --name value} options of the job and engine runs, each with a default; an unknown name
 * or a missing value is refused with the usage text.
 */
public final class Flags {
    private final Map<String, String> values;
    private final boolean help;

    private Flags(Map<String, String> values, boolean help) {
        this.values = values;
        this.help = help;
    }

    /** @param defaults every accepted option and its default; {@code "true"}/{@code "false"} ones are switches */
    public static Flags parse(String[] args, Map<String, String> defaults, String usage) {
        Map<String, String> values = new LinkedHashMap<>(defaults);
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("-h") || name.equals("--help")) {
                help = true;
            } else if (!defaults.containsKey(name)) {
                throw new IllegalArgumentException("unknown option '" + name + "'\n" + usage);
            } else if (isSwitch(defaults.get(name))) {
                values.put(name, "true");
            } else if (i + 1 == args.length) {
                throw new IllegalArgumentException("option '" + name + "' needs a value\n" + usage);
            } else {
                values.put(name, args[++i]);
            }
        }
        return new Flags(values, help);
    }

    private static boolean isSwitch(String value) {
        return value.equals("true") || value.equals("false");
    }

    /** Every option as command-line arguments that parse to these values again (switches only when on). */
    public List<String> asArgs() {
        List<String> args = new ArrayList<>();
        values.forEach((name, value) -> {
            if (value.equals("true")) {
                args.add(name);
            } else if (!value.equals("false")) {
                args.add(name);
                args.add(value);
            }
        });
        return args;
    }

    public boolean help() {
        return help;
    }

    public boolean on(String name) {
        return Boolean.parseBoolean(get(name));
    }

    public String get(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no option " + name);
        }
        return v;
    }

    public long positive(String name) {
        try {
            long v = Long.parseLong(get(name).replace("_", ""));
            if (v < 1) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a positive integer, got '" + get(name) + "'");
        }
    }

    /** A comma-separated list of positive integers, e.g. {@code --rows 1000000,4000000}. */
    public List<Long> positives(String name) {
        List<Long> values = new ArrayList<>();
        for (String item : get(name).split(",")) {
            try {
                long v = Long.parseLong(item.trim().replace("_", ""));
                if (v < 1) {
                    throw new NumberFormatException();
                }
                values.add(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        name + " needs positive integers separated by commas, got '" + get(name) + "'");
            }
        }
        return List.copyOf(values);
    }

    public int positiveInt(String name) {
        return Math.toIntExact(positive(name));
    }
}
