package io.walsink.format.consumer;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one split of a continuous read with a consumer id still needs, as of its last completed
 * checkpoint, kept at {@code _walsink/consumers/{id}/{split}.json} so that garbage collection
 * keeps it (see {@link ConsumerRecords}):
 *
 * <pre>
 * {"consumer":"etl","split":"bucket-3","bucket":3,"written_at":"2026-01-01T00:00:00Z","base_version":12,
 *  "shards":[{"shard":"...","manifest_version":7,"emitted_through":41}]}
 * </pre>
 *
 * @param bucket the split's bucket, -1 for the whole table: a shard of that bucket the record does
 *     not list is one the read has not found yet, and it will read it from its first version
 * @param writtenAt when the reader wrote it; garbage collection ignores it once older than the
 *     consumer expiration
 * @param baseVersion the pinned base table version while the split's snapshot rows are not all
 *     emitted, empty after
 * @param shards per shard the oldest manifest version the read still needs, and the last
 *     generation it emitted whole (it needs the SSTable folders of later generations)
 */
@Internal
public record ConsumerRecord(
        String consumerId,
        String split,
        int bucket,
        Instant writtenAt,
        OptionalLong baseVersion,
        List<Position> shards) {
    /** A safe file name: what a consumer id and a split name may be. */
    private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

    private static final Pattern NAME_PATTERN = Pattern.compile(NAME);
    private static final Pattern FORMAT = Pattern.compile(
            "\\s*\\{\\s*\"consumer\"\\s*:\\s*\"(" + NAME + ")\"\\s*,"
                    + "\\s*\"split\"\\s*:\\s*\"(" + NAME + ")\"\\s*,"
                    + "\\s*\"bucket\"\\s*:\\s*(-?\\d{1,10})\\s*,"
                    + "\\s*\"written_at\"\\s*:\\s*\"([^\"]{1,64})\"\\s*,"
                    + "\\s*\"base_version\"\\s*:\\s*(null|\\d{1,19})\\s*,"
                    + "\\s*\"shards\"\\s*:\\s*\\[(.*)]\\s*}\\s*",
            Pattern.DOTALL);
    private static final Pattern SHARD = Pattern.compile("\\s*\\{\\s*\"shard\"\\s*:\\s*\"([0-9a-f-]{36})\"\\s*,"
            + "\\s*\"manifest_version\"\\s*:\\s*(\\d{1,19})\\s*,"
            + "\\s*\"emitted_through\"\\s*:\\s*(\\d{1,19})\\s*}\\s*(,|$)");

    /** One shard's need: manifest versions from {@code manifestVersion}, generations after {@code emittedThrough}. */
    public record Position(UUID shard, long manifestVersion, long emittedThrough) {
        public Position {
            Objects.requireNonNull(shard, "shard");
            if (manifestVersion < 1 || emittedThrough < 0) {
                throw new IllegalArgumentException("invalid consumer position of shard " + shard + ": manifest version "
                        + manifestVersion + ", emitted through " + emittedThrough);
            }
        }
    }

    public ConsumerRecord {
        requireName(consumerId, "consumer id");
        requireName(split, "split name");
        Objects.requireNonNull(writtenAt, "writtenAt");
        Objects.requireNonNull(baseVersion, "baseVersion");
        shards = List.copyOf(shards);
    }

    /**
     * @throws IllegalArgumentException unless {@code name} is 1 to 100 letters, digits, dots,
     *     underscores or hyphens starting with a letter or digit (it names a file)
     */
    public static String requireName(String name, String what) {
        if (name == null || !NAME_PATTERN.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be 1 to 100 letters, digits, '.', '_' or '-', starting"
                    + " with a letter or digit (it names a file under _walsink/consumers/), was '" + name + "'");
        }
        return name;
    }

    /** The position of {@code shard}, if the record lists it. */
    public java.util.Optional<Position> position(UUID shard) {
        return shards.stream().filter(p -> p.shard().equals(shard)).findFirst();
    }

    public byte[] encode() {
        StringBuilder s = new StringBuilder()
                .append("{\"consumer\":\"")
                .append(consumerId)
                .append("\",\"split\":\"")
                .append(split)
                .append("\",\"bucket\":")
                .append(bucket)
                .append(",\"written_at\":\"")
                .append(writtenAt)
                .append("\",\"base_version\":")
                .append(baseVersion.isPresent() ? Long.toString(baseVersion.getAsLong()) : "null")
                .append(",\"shards\":[");
        for (int i = 0; i < shards.size(); i++) {
            Position p = shards.get(i);
            s.append(i == 0 ? "" : ",")
                    .append("{\"shard\":\"")
                    .append(p.shard())
                    .append("\",\"manifest_version\":")
                    .append(p.manifestVersion())
                    .append(",\"emitted_through\":")
                    .append(p.emittedThrough())
                    .append('}');
        }
        return s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws FormatException naming {@code location} if the bytes are not a consumer record */
    public static ConsumerRecord decode(byte[] bytes, String location) {
        Matcher m = FORMAT.matcher(new String(bytes, StandardCharsets.UTF_8));
        if (!m.matches()) {
            throw new FormatException(location, "not a consumer record", null);
        }
        try {
            List<Position> shards = new ArrayList<>();
            String list = m.group(6);
            if (!list.isBlank()) {
                Matcher shard = SHARD.matcher(list);
                int at = 0;
                boolean more = true;
                while (more) {
                    if (!shard.find(at) || shard.start() != at) {
                        throw new FormatException(location, "not a consumer record: shard list at " + at, null);
                    }
                    shards.add(new Position(
                            UUID.fromString(shard.group(1)),
                            Long.parseLong(shard.group(2)),
                            Long.parseLong(shard.group(3))));
                    at = shard.end();
                    more = shard.group(4).equals(",");
                }
            }
            return new ConsumerRecord(
                    m.group(1),
                    m.group(2),
                    Integer.parseInt(m.group(3)),
                    Instant.parse(m.group(4)),
                    m.group(5).equals("null") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(m.group(5))),
                    shards);
        } catch (DateTimeParseException | IllegalArgumentException e) {
            throw new FormatException(location, "not a consumer record: " + e.getMessage(), e);
        }
    }
}
