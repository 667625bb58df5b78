package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.util.List;

/**
 * Two shards of the table claim the same bucket (or, in an unsharded table with a key, the table
 * has several shards), which the MemWAL specification forbids: a key would live in two shards.
 * Writers refuse the table; {@code walsink verify} names the shards.
 */
@Internal
public class OverlappingShardsException extends FormatException {
    public OverlappingShardsException(String location, List<String> overlaps) {
        super(
                location,
                "shards overlap, refusing to write: " + String.join("; ", overlaps)
                        + ". `walsink verify TABLE` lists them; see docs/format.md, Shard ids",
                null);
    }
}
