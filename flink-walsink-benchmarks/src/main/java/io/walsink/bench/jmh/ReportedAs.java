package io.walsink.bench.jmh;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How {@link BenchmarkReport} shows a benchmark class's scores. JMH only knows "ops"; this names
 * what an op is, or picks an auxiliary counter (such as bytes) to report instead.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface ReportedAs {
    /** The unit of the shown score, e.g. {@code rows/s}. */
    String unit();

    /** An {@code @AuxCounters} field to show instead of the primary score; empty for the primary. */
    String counter() default "";

    /** Multiplier applied to the shown score (e.g. 1e-6 for bytes/s to MB/s). */
    double scale() default 1.0;
}
