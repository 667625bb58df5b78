package io.walsink.table.search;

import io.walsink.annotation.Internal;
import io.walsink.read.TextQuery;
import java.io.Serializable;
import java.util.Objects;

/**
 * A SELECT that returns the best full-text matches instead of every row ({@code scan.full-text.*}).
 *
 * @param column the column searched, which a maintained INVERTED index covers
 * @param query the words matched
 * @param limit how many of the best matches
 */
@Internal
public record FullTextScan(String column, String query, int limit) implements Serializable {
    /**
     * @throws IllegalArgumentException naming the option at fault
     */
    public FullTextScan {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(query, "query");
        if (query.isBlank()) {
            throw new IllegalArgumentException("'scan.full-text.query' must not be blank");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("'scan.full-text.limit' must be positive, got " + limit);
        }
    }

    TextQuery textQuery() {
        return new TextQuery(column, query, limit);
    }
}
