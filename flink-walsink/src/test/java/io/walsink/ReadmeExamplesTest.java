package io.walsink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java example in README.md compiles as written against the library: each block becomes
 * the body of a method that has the README's free names ({@code env}, {@code stream}) as
 * parameters, with the imports a user would write.
 */
class ReadmeExamplesTest {
    private static final Path README = Path.of("..", "README.md");
    private static final List<String> IMPORTS = List.of(
            "io.walsink.flink.WalSink",
            "io.walsink.maintenance.CompactionResult",
            "io.walsink.maintenance.Compactor",
            "io.walsink.maintenance.CompactorOptions",
            "io.walsink.read.NearestQuery",
            "io.walsink.read.Neighbour",
            "io.walsink.read.ReadMode",
            "io.walsink.read.TableReader",
            "io.walsink.storage.S3Options",
            "java.time.Duration",
            "java.util.Map",
            "org.apache.flink.streaming.api.datastream.DataStream",
            "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment",
            "org.apache.flink.table.types.logical.BigIntType",
            "org.apache.flink.table.types.logical.DoubleType",
            "org.apache.flink.table.types.logical.LogicalType",
            "org.apache.flink.table.types.logical.RowType",
            "org.apache.flink.table.types.logical.VarCharType",
            "org.apache.flink.types.Row");

    @TempDir
    Path classes;

    @Test
    void everyJavaBlockOfTheReadmeCompiles() throws Exception {
        List<String> blocks = javaBlocks(Files.readString(README, StandardCharsets.UTF_8));
        assertThat(blocks).as("Java blocks in README.md").hasSizeGreaterThanOrEqualTo(2);
        List<JavaFileObject> sources = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            sources.add(source("ReadmeExample" + i, blocks.get(i)));
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean compiled = compiler.getTask(
                        diagnostics,
                        null,
                        null,
                        List.of(
                                "-classpath",
                                System.getProperty("java.class.path"),
                                "-d",
                                classes.toString(),
                                "-proc:none"),
                        null,
                        sources)
                .call();
        assertThat(compiled).as("README examples compile:%n%s", diagnostics).isTrue();
    }

    static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    private static JavaFileObject source(String name, String block) {
        StringBuilder code = new StringBuilder("package readme;\n");
        IMPORTS.forEach(i -> code.append("import ").append(i).append(";\n"));
        code.append("class ")
                .append(name)
                .append(" {\n")
                .append("    void example(StreamExecutionEnvironment env, DataStream<Row> stream) throws Exception {\n")
                .append(block)
                .append("    }\n}\n");
        return new SimpleJavaFileObject(URI.create("string:///readme/" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }
}
