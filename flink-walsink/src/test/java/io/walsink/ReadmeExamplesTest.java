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
 * Every Java example in README.md compiles as written against the library. A block that is a whole
 * compilation unit (it starts with {@code import} or {@code package}, or declares a class) is
 * compiled as it stands, so its imports must be complete; any other block becomes the body of a
 * method that has the README's free names ({@code env}, {@code stream}) as parameters, with the
 * imports a user would write.
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

    /** A class (or record, interface, enum) declared at the start of a line. */
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "(?m)^\\s*((?:(?:public|final|abstract|static)\\s+)*)(class|record|interface|enum)\\s+(\\w+)");

    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    @TempDir
    Path classes;

    @Test
    void everyJavaBlockOfTheReadmeCompiles() throws Exception {
        List<String> blocks = javaBlocks(Files.readString(README, StandardCharsets.UTF_8));
        assertThat(blocks).as("Java blocks in README.md").hasSizeGreaterThanOrEqualTo(2);
        assertThat(blocks)
                .as("README.md shows a whole program: a compilation unit with a main method")
                .anyMatch(b -> isCompilationUnit(b) && b.contains("public static void main("));
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

    @Test
    void wholeCompilationUnitsAreToldApartFromSnippets() {
        assertThat(isCompilationUnit("import a.B;\nclass C {}\n")).isTrue();
        assertThat(isCompilationUnit("package p;\nclass C {}\n")).isTrue();
        assertThat(isCompilationUnit("public final class C {\n}\n")).isTrue();
        assertThat(isCompilationUnit("stream.sinkTo(WalSink.forPojos(MyRecord.class).build());\n"))
                .isFalse();
        assertThat(isCompilationUnit("env.execute(\"a class of jobs\");\n")).isFalse();
        assertThat(fileName("import a.B;\npublic class Job {}\n", "ReadmeExample3"))
                .isEqualTo("Job");
        assertThat(fileName("import a.B;\nclass Job {}\n", "ReadmeExample3")).isEqualTo("ReadmeExample3");
    }

    /** True when {@code block} starts with {@code import} or {@code package}, or declares a class. */
    static boolean isCompilationUnit(String block) {
        String code = block.strip();
        return code.startsWith("import ")
                || code.startsWith("package ")
                || TYPE_DECLARATION.matcher(block).find();
    }

    /** The name the source file of a compilation unit must have: its public class's, else {@code fallback}. */
    static String fileName(String unit, String fallback) {
        Matcher m = TYPE_DECLARATION.matcher(unit);
        while (m.find()) {
            if (m.group(1).contains("public")) {
                return m.group(3);
            }
        }
        return fallback;
    }

    private static JavaFileObject source(String name, String block) {
        if (isCompilationUnit(block)) {
            Matcher pkg = PACKAGE.matcher(block);
            String dir = pkg.find() ? pkg.group(1).replace('.', '/') + "/" : "";
            return javaFile(dir + fileName(block, name), block);
        }
        StringBuilder code = new StringBuilder("package readme;\n");
        IMPORTS.forEach(i -> code.append("import ").append(i).append(";\n"));
        code.append("class ")
                .append(name)
                .append(" {\n")
                .append("    void example(StreamExecutionEnvironment env, DataStream<Row> stream) throws Exception {\n")
                .append(block)
                .append("    }\n}\n");
        return javaFile("readme/" + name, code);
    }

    /** An in-memory source file; {@code path} (without {@code .java}) ends in the name javac expects. */
    private static JavaFileObject javaFile(String path, CharSequence code) {
        return new SimpleJavaFileObject(URI.create("string:///" + path + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }
}
