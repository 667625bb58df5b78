package io.walsink.examples;

import io.walsink.cli.WalsinkCli;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** What a demo prints, and the {@code walsink} command run in-process on the table it wrote. */
final class Console {
    private Console() {}

    record Printed<T>(T result, String out) {}

    record Run(int code, String out, String err) {}

    /** Runs {@code demo} with stdout copied (Flink's task threads print through the same stream). */
    static <T> Printed<T> capture(Callable<T> demo) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new Tee(original, copy), true, StandardCharsets.UTF_8);
        System.setOut(tee);
        try {
            T result = demo.call();
            tee.flush();
            return new Printed<>(result, copy.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    static Run walsink(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = WalsinkCli.execute(o, e, args);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static final class Tee extends OutputStream {
        private final PrintStream console;
        private final ByteArrayOutputStream copy;

        Tee(PrintStream console, ByteArrayOutputStream copy) {
            this.console = console;
            this.copy = copy;
        }

        @Override
        public synchronized void write(int c) {
            console.write(c);
            copy.write(c);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) {
            console.write(bytes, off, len);
            copy.write(bytes, off, len);
        }

        @Override
        public void flush() {
            console.flush();
        }
    }
}
