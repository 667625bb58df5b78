package io.walsink.recovery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One object of the compaction lease ({@link CompactionLease}): who holds it until when, as lines
 * of {@code key=value}. A reader skips the lines it does not know, so an entry written by a newer
 * release (a shared one) still reads as held by its {@code holder} until it expires.
 *
 * @param holder the name shown in messages
 * @param expiresAtMillis the writer's clock; a release writes an entry that has already expired
 * @param job the job the holder ran for; null for a standalone compactor or an older release's entry
 * @param sharedBy every holder of a shared lease (the job's restoring subtasks); empty for an
 *     exclusive one
 */
record LeaseEntry(long sequence, String holder, long expiresAtMillis, String job, List<String> sharedBy) {
    LeaseEntry {
        sharedBy = List.copyOf(sharedBy);
    }

    LeaseEntry(long sequence, String holder, long expiresAtMillis, Optional<String> job, List<String> sharedBy) {
        this(sequence, holder, expiresAtMillis, job.orElse(null), sharedBy);
    }

    boolean heldAt(long now) {
        return expiresAtMillis > now;
    }

    /** Who holds it, for messages: every sharing holder of a shared entry. */
    String names() {
        return sharedBy.isEmpty() ? holder : String.join(", ", sharedBy);
    }

    /** The holders of a shared lease with {@code name} added (once). */
    List<String> with(String name) {
        List<String> names = new ArrayList<>(sharedBy);
        if (!names.contains(name)) {
            names.add(name);
        }
        return names;
    }

    List<String> without(String name) {
        return sharedBy.stream().filter(n -> !n.equals(name)).toList();
    }

    byte[] encode() {
        StringBuilder text = new StringBuilder("holder=" + holder + "\nexpires=" + expiresAtMillis + "\n");
        if (job != null) {
            text.append("job=").append(job).append('\n');
        }
        sharedBy.forEach(name -> text.append("shared=").append(name).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @param where the object's key, for messages */
    static LeaseEntry decode(long sequence, byte[] bytes, String where) {
        String holder = null;
        String job = null;
        long expires = 0;
        List<String> sharedBy = new ArrayList<>();
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("shared=")) {
                sharedBy.add(line.substring("shared=".length()));
            } else if (line.startsWith("holder=")) {
                holder = line.substring("holder=".length());
            } else if (line.startsWith("job=")) {
                job = line.substring("job=".length()).trim();
            } else if (line.startsWith("expires=")) {
                try {
                    expires = Long.parseLong(line.substring("expires=".length()).trim());
                } catch (NumberFormatException e) {
                    throw new CompactionLeaseException(where, "compaction lease entry with a bad expiry: " + e);
                }
            }
        }
        if (holder == null) {
            throw new CompactionLeaseException(where, "compaction lease entry without a holder");
        }
        return new LeaseEntry(sequence, holder, expires, job, sharedBy);
    }
}
