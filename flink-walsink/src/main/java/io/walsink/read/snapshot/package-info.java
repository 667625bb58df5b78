/**
 * The core of the reader: a {@link io.walsink.read.snapshot.TableSnapshot} pins the base table's
 * version and each shard's manifest (and WAL position), and
 * {@link io.walsink.read.snapshot.SnapshotReader} merges what it pins, newest row per key. The
 * other read packages ({@code scan}, {@code search}, {@code lookup}) build on these pieces; of the
 * public API it uses only values ({@code ReadMode}, {@code TableRows}), never
 * {@code TableReader}, which sits on top of it.
 */
package io.walsink.read.snapshot;
