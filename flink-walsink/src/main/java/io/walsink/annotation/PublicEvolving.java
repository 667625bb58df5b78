package io.walsink.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Part of walsink's API: meant for users, kept source-compatible within a minor release line,
 * may still change between minor releases (Flink's {@code @PublicEvolving} level). Our own
 * annotation rather than Flink's so that the layers below {@code io.walsink.flink} stay free of
 * Flink classes.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface PublicEvolving {}
