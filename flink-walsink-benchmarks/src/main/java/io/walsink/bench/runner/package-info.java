/**
 * The whole-job benchmark runner: {@link io.walsink.bench.runner.BenchmarkRunner}, the
 * {@link io.walsink.bench.runner.Definition} record every benchmark is declared with, and the
 * {@link io.walsink.bench.runner.Definitions} registry. Definitions call into {@code jobs},
 * {@code engine} and {@code read}; nothing depends on this package.
 */
package io.walsink.bench.runner;
