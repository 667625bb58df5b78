package io.walsink.cli;

import java.io.PrintStream;
import java.util.List;

/** Prints rows as aligned columns under a header and a rule. */
final class TextTable {
    private final PrintStream out;

    TextTable(PrintStream out) {
        this.out = out;
    }

    void print(List<String> header, List<List<String>> rows) {
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
}
