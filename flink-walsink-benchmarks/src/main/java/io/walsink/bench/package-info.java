/**
 * Benchmarks of the write path (JMH) and the report runner that prints them as a table of ratios
 * against baselines measured in the same run; see docs/benchmarks.md.
 */
package io.walsink.bench;
