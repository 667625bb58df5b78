/**
 * A pinned snapshot read in parts, for the Flink sources: {@link io.walsink.read.scan.SnapshotScan}
 * cuts it into base-fragment groups and per-bucket parts that resume at a
 * {@link io.walsink.read.scan.ScanPosition}, and {@link io.walsink.read.scan.GenerationLog} lists
 * the generations published after it, for a continuous read. Built on {@code read.snapshot}.
 */
package io.walsink.read.scan;
