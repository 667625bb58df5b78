package io.walsink.format.wal;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Reads the two fields the interop tests need from the newest shard manifest lance-core wrote
 * (tags 2 and 4 of {@code lance.table.ShardManifest}). Test-only until the manifest codec is merged.
 */
final class LanceShardManifests {
    record Claim(long version, long writerEpoch, long walEntryPositionLastSeen) {}

    private LanceShardManifests() {}

    static Claim latest(Path table, UUID shard) {
        Path folder = table.resolve("_mem_wal").resolve(shard.toString()).resolve("manifest");
        try (Stream<Path> files = Files.list(folder)) {
            Path newest = files.filter(p -> p.getFileName().toString().matches("[01]{64}\\.binpb"))
                    .max((a, b) -> Long.compare(version(a), version(b)))
                    .orElseThrow(() -> new IllegalStateException("no manifest in " + folder));
            return parse(version(newest), Files.readAllBytes(newest));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long version(Path file) {
        return Long.reverse(Long.parseUnsignedLong(file.getFileName().toString().substring(0, 64), 2));
    }

    private static Claim parse(long version, byte[] bytes) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        long epoch = 0;
        long lastSeen = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag >>> 3) {
                case 2 -> epoch = in.readUInt64();
                case 4 -> lastSeen = in.readUInt64();
                default -> in.skipField(tag);
            }
        }
        return new Claim(version, epoch, lastSeen);
    }
}
