package io.walsink.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * A Flink filter as a Lance SQL predicate for the base table's scan: comparisons of a column with
 * a literal, IS [NOT] NULL, IN, AND, OR and NOT, on integer, boolean and string columns. A filter
 * is translated exactly or not at all (a weaker predicate under NOT would drop rows), so the
 * base scan never leaves out a row the filter keeps; Flink still applies every filter after the
 * scan, since the rows above the base are merged, and judged, only after it.
 */
final class LanceFilter {
    private static final Map<FunctionDefinition, String> COMPARISONS = Map.of(
            BuiltInFunctionDefinitions.EQUALS, "=",
            BuiltInFunctionDefinitions.NOT_EQUALS, "<>",
            BuiltInFunctionDefinitions.GREATER_THAN, ">",
            BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, ">=",
            BuiltInFunctionDefinitions.LESS_THAN, "<",
            BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, "<=");
    /** The operator with its sides swapped, for {@code literal op column}. */
    private static final Map<String, String> SWAPPED =
            Map.of("=", "=", "<>", "<>", ">", "<", ">=", "<=", "<", ">", "<=", ">=");

    private LanceFilter() {}

    /** The predicate, or empty when some part of {@code filter} has no exact Lance form. */
    static Optional<String> of(ResolvedExpression filter) {
        if (filter instanceof CallExpression call) {
            return call(call);
        }
        return Optional.empty();
    }

    private static Optional<String> call(CallExpression call) {
        FunctionDefinition f = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (COMPARISONS.containsKey(f) && args.size() == 2) {
            String op = COMPARISONS.get(f);
            if (args.get(0) instanceof FieldReferenceExpression column) {
                return comparison(column, op, args.get(1));
            }
            if (args.get(1) instanceof FieldReferenceExpression column) {
                return comparison(column, SWAPPED.get(op), args.get(0));
            }
            return Optional.empty();
        }
        if ((f == BuiltInFunctionDefinitions.IS_NULL || f == BuiltInFunctionDefinitions.IS_NOT_NULL)
                && args.size() == 1
                && args.get(0) instanceof FieldReferenceExpression column
                && supported(column)) {
            return Optional.of(name(column) + (f == BuiltInFunctionDefinitions.IS_NULL ? " IS NULL" : " IS NOT NULL"));
        }
        if (f == BuiltInFunctionDefinitions.NOT && args.size() == 1) {
            return of(args.get(0)).map(inner -> "NOT (" + inner + ")");
        }
        if (f == BuiltInFunctionDefinitions.AND || f == BuiltInFunctionDefinitions.OR) {
            return joined(args, f == BuiltInFunctionDefinitions.AND ? " AND " : " OR ");
        }
        if (f == BuiltInFunctionDefinitions.IN
                && args.size() > 1
                && args.get(0) instanceof FieldReferenceExpression column
                && supported(column)) {
            List<String> values = new ArrayList<>();
            for (ResolvedExpression value : args.subList(1, args.size())) {
                Optional<String> literal = literal(column, value);
                if (literal.isEmpty()) {
                    return Optional.empty();
                }
                values.add(literal.get());
            }
            return Optional.of(name(column) + " IN (" + String.join(", ", values) + ")");
        }
        return Optional.empty();
    }

    private static Optional<String> joined(List<ResolvedExpression> args, String operator) {
        List<String> parts = new ArrayList<>();
        for (ResolvedExpression arg : args) {
            Optional<String> part = of(arg);
            if (part.isEmpty()) {
                return Optional.empty();
            }
            parts.add("(" + part.get() + ")");
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join(operator, parts));
    }

    private static Optional<String> comparison(FieldReferenceExpression column, String op, ResolvedExpression value) {
        if (!supported(column)) {
            return Optional.empty();
        }
        return literal(column, value).map(literal -> name(column) + " " + op + " " + literal);
    }

    /** Only integers, booleans and strings: their Lance literals compare as Flink's values do. */
    private static boolean supported(FieldReferenceExpression column) {
        LogicalTypeRoot type = column.getOutputDataType().getLogicalType().getTypeRoot();
        return switch (type) {
            case TINYINT, SMALLINT, INTEGER, BIGINT, BOOLEAN, VARCHAR -> true;
            default -> false;
        };
    }

    /** A non-null literal of the column's own type (a comparison with NULL keeps no row anyway). */
    private static Optional<String> literal(FieldReferenceExpression column, ResolvedExpression value) {
        if (!(value instanceof ValueLiteralExpression literal) || literal.isNull()) {
            return Optional.empty();
        }
        LogicalTypeRoot type = column.getOutputDataType().getLogicalType().getTypeRoot();
        if (literal.getOutputDataType().getLogicalType().getTypeRoot() != type
                && !(type == LogicalTypeRoot.VARCHAR
                        && literal.getOutputDataType().getLogicalType().getTypeRoot() == LogicalTypeRoot.CHAR)) {
            return Optional.empty(); // Flink would compare after a cast; leave that to Flink
        }
        return switch (type) {
            case TINYINT, SMALLINT, INTEGER, BIGINT -> literal.getValueAs(Number.class)
                    .map(Number::longValue)
                    .filter(v -> v != Long.MIN_VALUE) // read as the negation of an out-of-range literal
                    .map(String::valueOf);
            case BOOLEAN -> literal.getValueAs(Boolean.class).map(String::valueOf);
            case VARCHAR -> literal.getValueAs(String.class).map(s -> "'" + s.replace("'", "''") + "'");
            default -> Optional.empty();
        };
    }

    private static String name(FieldReferenceExpression column) {
        return "`" + column.getName().replace("`", "``") + "`";
    }
}
