package io.walsink.bench.support;

import java.util.Locale;

/** Number formatting for the report: thousands separators, no false precision. */
public final class Figures {
    private Figures() {}

    public static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "-";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    public static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    public static String ratio(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2fx", value);
    }

    public static String error(double value) {
        return Double.isNaN(value) ? "" : "± " + number(value);
    }
}
