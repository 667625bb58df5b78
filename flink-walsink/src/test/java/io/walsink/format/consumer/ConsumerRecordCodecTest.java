package io.walsink.format.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The consumer record's bytes as docs/format.md shows them, read back exactly; anything else is refused. */
class ConsumerRecordCodecTest {
    private static final UUID SHARD = UUID.fromString("0b5e2c1d-3f4a-4b6c-8d7e-9f0a1b2c3d4e");
    private static final UUID OTHER = UUID.fromString("4a388480-a25b-59a8-b058-24217f980256");

    @Test
    void aRecordIsWrittenAsDocumentedAndReadBack() {
        ConsumerRecord record = new ConsumerRecord(
                "etl",
                "bucket-3",
                3,
                Instant.parse("2026-01-01T00:00:00Z"),
                OptionalLong.of(12),
                List.of(new ConsumerRecord.Position(SHARD, 7, 41), new ConsumerRecord.Position(OTHER, 1, 0)));
        String json = new String(record.encode(), StandardCharsets.UTF_8);
        assertThat(json)
                .isEqualTo("{\"consumer\":\"etl\",\"split\":\"bucket-3\",\"bucket\":3,"
                        + "\"written_at\":\"2026-01-01T00:00:00Z\",\"base_version\":12,\"shards\":["
                        + "{\"shard\":\"" + SHARD + "\",\"manifest_version\":7,\"emitted_through\":41},"
                        + "{\"shard\":\"" + OTHER + "\",\"manifest_version\":1,\"emitted_through\":0}]}");
        assertThat(ConsumerRecord.decode(record.encode(), "here")).isEqualTo(record);
    }

    @Test
    void aRecordWithoutBaseVersionOrShardsReadsBackWithSpacesAround() {
        ConsumerRecord record = new ConsumerRecord(
                "a.b_c-1", "table", -1, Instant.parse("2026-01-01T00:00:00Z"), OptionalLong.empty(), List.of());
        String spaced = new String(record.encode(), StandardCharsets.UTF_8)
                .replace(",", " ,\n ")
                .replace("\":", "\" : ");
        assertThat(ConsumerRecord.decode(spaced.getBytes(StandardCharsets.UTF_8), "here"))
                .isEqualTo(record);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "{}",
                "{\"consumer\":\"../x\",\"split\":\"table\",\"bucket\":-1,\"written_at\":\"2026-01-01T00:00:00Z\","
                        + "\"base_version\":null,\"shards\":[]}",
                "{\"consumer\":\"x\",\"split\":\"table\",\"bucket\":-1,\"written_at\":\"yesterday\","
                        + "\"base_version\":null,\"shards\":[]}",
                "{\"consumer\":\"x\",\"split\":\"table\",\"bucket\":-1,\"written_at\":\"2026-01-01T00:00:00Z\","
                        + "\"base_version\":null,\"shards\":[{\"shard\":\"0b5e2c1d-3f4a-4b6c-8d7e-9f0a1b2c3d4e\"}]}",
                "{\"consumer\":\"x\",\"split\":\"table\",\"bucket\":-1,\"written_at\":\"2026-01-01T00:00:00Z\","
                        + "\"base_version\":null,\"shards\":[{\"shard\":\"0b5e2c1d-3f4a-4b6c-8d7e-9f0a1b2c3d4e\","
                        + "\"manifest_version\":0,\"emitted_through\":0}]}",
            })
    void anythingElseIsRefusedNamingTheObject(String bytes) {
        assertThatThrownBy(() -> ConsumerRecord.decode(bytes.getBytes(StandardCharsets.UTF_8), "the/object"))
                .isInstanceOf(FormatException.class)
                .hasMessageStartingWith("the/object: not a consumer record");
    }

    @ParameterizedTest
    @ValueSource(strings = {"../etl", "etl/1", ".hidden", "-x", "a b", "ä"})
    void anIdThatIsNoSafeFileNameIsRefused(String id) {
        assertThatThrownBy(() -> ConsumerRecord.requireName(id, "consumer id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("consumer id must be 1 to 100 letters")
                .hasMessageContaining("'" + id + "'");
        assertThat(ConsumerRecord.requireName("x".repeat(100), "id")).hasSize(100);
        assertThatThrownBy(() -> ConsumerRecord.requireName("x".repeat(101), "id"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
