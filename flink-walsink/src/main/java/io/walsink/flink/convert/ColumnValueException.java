package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;

/**
 * One value cannot be stored in its column (a decimal that does not fit, a vector of the wrong
 * length, a null in a NOT NULL column, an object of the wrong class). Names the column so that a
 * failing job points at the data, not at the converter.
 */
@Internal
public final class ColumnValueException extends InputException {

    private static final long serialVersionUID = 1L;

    private final String column;
    private final String problem;

    public ColumnValueException(String column, String problem) {
        this(column, problem, null);
    }

    public ColumnValueException(String column, String problem, Throwable cause) {
        super("column '" + column + "': " + problem, cause);
        this.column = column;
        this.problem = problem;
    }

    public String column() {
        return column;
    }

    /** The message without the column, so that a caller can add where the value came from. */
    public String problem() {
        return problem;
    }
}
