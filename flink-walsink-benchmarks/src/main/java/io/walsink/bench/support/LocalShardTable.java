package io.walsink.bench.support;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A real Lance table (one bucket, key {@code id}) in a temporary folder, with the shard context
 * the engine needs. Every {@link #openShard()} claims a fresh shard, so a benchmark can drop a
 * full writer and start over without replaying anything.
 */
public final class LocalShardTable implements AutoCloseable {
    private final Path dir;
    private final TableInfo table;
    private final TableContext context;

    private LocalShardTable(Path dir, TableInfo table, TableContext context) {
        this.dir = dir;
        this.table = table;
        this.context = context;
    }

    public static LocalShardTable create(BufferAllocator allocator) {
        return create(allocator, ShardWriterConfig.defaults());
    }

    public static LocalShardTable create(BufferAllocator allocator, ShardWriterConfig config) {
        Path dir = tempDir();
        Path tablePath = dir.resolve("table");
        TableInfo table = LanceTables.create(
                tablePath.toString(),
                KeyValueRows.SCHEMA,
                List.of(KeyValueRows.KEY),
                TableSharding.bucket(KeyValueRows.KEY, 1),
                Map.of());
        ObjectStore store = new LocalObjectStore(tablePath);
        TableContext context = new TableContext(
                new TableLocation(store, table.uri(), Map.of()), table, WalSchemaProfile.SPEC, config, allocator);
        return new LocalShardTable(dir, table, context);
    }

    public TableContext context() {
        return context;
    }

    TableInfo table() {
        return table;
    }

    /** A scratch folder inside this table's temporary folder (deleted with it). */
    public Path scratch(String name) {
        try {
            return Files.createDirectories(dir.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public ShardWriter openShard() {
        return ShardOpener.open(
                context,
                UUID.randomUUID(),
                0,
                ShardPlacement.bucket(table.sharding().specId(), 0));
    }

    @Override
    public void close() {
        deleteRecursively(dir);
    }

    /**
     * Deletes {@code path} and everything under it. Files that vanish meanwhile are fine: a
     * finished local job's checkpoint cleanup may still be deleting its own files in the folder.
     */
    public static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException gone) {
            // the folder went away under us
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("walsink-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
