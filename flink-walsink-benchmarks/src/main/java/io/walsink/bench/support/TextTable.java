package io.walsink.bench.support;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns; numeric columns are right-aligned. */
public final class TextTable {
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** @param headers column names; a name starting with '>' marks a right-aligned column */
    public TextTable(String... headers) {
        this.headers = new String[headers.length];
        this.rightAligned = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            rightAligned[i] = headers[i].startsWith(">");
            this.headers[i] = rightAligned[i] ? headers[i].substring(1) : headers[i];
        }
    }

    public TextTable row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("expected " + headers.length + " cells, got " + cells.length);
        }
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    public String render() {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].length();
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, widths);
        String[] rule = new String[headers.length];
        for (int i = 0; i < rule.length; i++) {
            rule[i] = "-".repeat(widths[i]);
        }
        line(out, rule, widths);
        for (String[] row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private void line(StringBuilder out, String[] cells, int[] widths) {
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                out.append("  ");
            }
            String pad = " ".repeat(widths[i] - cells[i].length());
            out.append(rightAligned[i] ? pad + cells[i] : cells[i] + (i == cells.length - 1 ? "" : pad));
        }
        out.append('\n');
    }
}
