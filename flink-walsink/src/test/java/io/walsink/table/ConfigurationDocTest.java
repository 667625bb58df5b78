package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.description.TextElement;
import org.apache.flink.util.TimeUtils;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists exactly the options of {@link WalSinkTableOptions}: the table
 * between the markers is rendered from the ConfigOptions and compared with the file. On a
 * mismatch the rendered file is written to target/configuration.md, ready to copy over.
 */
class ConfigurationDocTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final String BEGIN =
            "<!-- options:begin (rendered from WalSinkTableOptions and SinkOptions; ConfigurationDocTest checks it) -->";
    private static final String END = "<!-- options:end -->";

    @Test
    void theOptionReferenceMatchesTheConfigOptions() throws Exception {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("markers in " + DOC).isNotNegative();
        assertThat(end).as("markers in " + DOC).isGreaterThan(begin);
        String rendered = doc.substring(0, begin + BEGIN.length()) + "\n" + table() + doc.substring(end);
        if (!rendered.equals(doc)) {
            Files.writeString(Path.of("target", "configuration.md"), rendered, StandardCharsets.UTF_8);
        }
        assertThat(doc)
                .as("docs/configuration.md is out of date; see target/configuration.md")
                .isEqualTo(rendered);
    }

    static String table() throws ReflectiveOperationException {
        List<String> lines = new ArrayList<>();
        lines.add("| Option | Type | Default | Description |");
        lines.add("|---|---|---|---|");
        for (ConfigOption<?> option : WalSinkTableOptions.required()) {
            lines.add(row(option, "(required)"));
        }
        for (ConfigOption<?> option : WalSinkTableOptions.optional()) {
            lines.add(row(option, option.hasDefaultValue() ? "`" + render(option.defaultValue()) + "`" : "(none)"));
        }
        return String.join("\n", lines) + "\n";
    }

    private static String row(ConfigOption<?> option, String defaultValue) throws ReflectiveOperationException {
        // withDescription(String) makes one text block holding the sentence as given.
        String description = ((TextElement) option.description().getBlocks().get(0)).getFormat();
        return "| `" + option.key() + "` | " + type(option) + " | " + defaultValue + " | "
                + description.replace("|", "\\|") + " |";
    }

    /** ConfigOption keeps its value class package-private; the doc needs it. */
    private static String type(ConfigOption<?> option) throws ReflectiveOperationException {
        Method clazz = ConfigOption.class.getDeclaredMethod("getClazz");
        clazz.setAccessible(true);
        return ((Class<?>) clazz.invoke(option)).getSimpleName();
    }

    private static String render(Object value) {
        if (value instanceof Duration d) {
            return TimeUtils.formatWithHighestUnit(d);
        }
        if (value instanceof MemorySize m) {
            return m.toString();
        }
        return String.valueOf(value);
    }
}
