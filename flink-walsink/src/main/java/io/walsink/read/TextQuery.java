package io.walsink.read;

import io.walsink.annotation.PublicEvolving;
import java.util.Objects;

/**
 * A full-text query of a walsink table ({@link TableReader#fullText}): the {@code k} live rows that
 * best match {@code text} in {@code column}, by Lance's BM25 score, through the table's maintained
 * full-text ({@code INVERTED}) index on the column.
 */
@PublicEvolving
public record TextQuery(String column, String text, int k) {
    public TextQuery {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            throw new IllegalArgumentException("the full-text query of column '" + column + "' is blank");
        }
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive, got " + k);
        }
    }
}
