package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What must hold across a shard's manifest history, as checkable code: versions contiguous from
 * 1; writer epochs, generations and the replay cursor never go back; one shard id throughout;
 * published SSTables older than the generation counter and unique per generation. The manifest
 * store, claim and restore tests run {@link #check} on the histories they produce, and the
 * command-line tool's {@code verify} runs {@link #violations(List, long)} from the shard's
 * garbage-collection floor. The writer does not call it.
 */
@Internal
public final class ManifestInvariants {
    private ManifestInvariants() {}

    /** Reads every version of the shard and returns the broken rules, empty if none. */
    public static List<String> check(ManifestStore store) {
        List<String> problems = new ArrayList<>();
        List<ShardManifest> history = new ArrayList<>();
        for (long v : store.listVersions()) {
            try {
                history.add(store.read(v));
            } catch (FormatException e) {
                problems.add(e.getMessage());
            }
        }
        problems.addAll(violations(history));
        return problems;
    }

    /** Like {@link #check} but throws when a rule is broken. */
    public static void requireValid(ManifestStore store) {
        List<String> problems = check(store);
        if (!problems.isEmpty()) {
            throw new FormatException(
                    store.location(TableLayout.manifestFolder(store.shardId())),
                    "manifest invariants broken: " + String.join("; ", problems),
                    null);
        }
    }

    /** The broken rules of a history given in ascending version order. */
    public static List<String> violations(List<ShardManifest> history) {
        return violations(history, 1);
    }

    /**
     * The broken rules of a history given in ascending version order whose first version must be
     * {@code firstVersion} (the garbage-collection floor, when older versions were collected).
     */
    public static List<String> violations(List<ShardManifest> history, long firstVersion) {
        List<String> problems = new ArrayList<>();
        ShardManifest prev = null;
        for (ShardManifest m : history) {
            long expected = prev == null ? firstVersion : prev.version() + 1;
            if (m.version() != expected) {
                problems.add("version " + m.version() + " follows " + (prev == null ? "nothing" : prev.version())
                        + ", expected " + expected);
            }
            prev = m;
        }
        problems.addAll(contentViolations(history));
        return problems;
    }

    /**
     * The broken rules of a history given in ascending version order, except the numbering:
     * each version on its own, and each version against the one before it in the list.
     */
    public static List<String> contentViolations(List<ShardManifest> history) {
        List<String> problems = new ArrayList<>();
        ShardManifest prev = null;
        for (ShardManifest m : history) {
            problems.addAll(withinOne(m));
            if (prev != null) {
                problems.addAll(between(prev, m));
            }
            prev = m;
        }
        return problems;
    }

    private static List<String> withinOne(ShardManifest m) {
        List<String> problems = new ArrayList<>();
        Set<Long> generations = new HashSet<>();
        for (SsTable t : m.sstables()) {
            if (t.generation() >= m.currentGeneration()) {
                problems.add("version " + m.version() + ": sstable " + t.path() + " has generation " + t.generation()
                        + ", not below current_generation " + m.currentGeneration());
            }
            if (!generations.add(t.generation())) {
                problems.add("version " + m.version() + ": two sstables of generation " + t.generation());
            }
        }
        return problems;
    }

    private static List<String> between(ShardManifest prev, ShardManifest m) {
        List<String> problems = new ArrayList<>();
        String step = "version " + prev.version() + " -> " + m.version() + ": ";
        if (m.writerEpoch() < prev.writerEpoch()) {
            problems.add(step + "writer_epoch went back " + prev.writerEpoch() + " -> " + m.writerEpoch());
        }
        if (m.currentGeneration() < prev.currentGeneration()) {
            problems.add(
                    step + "current_generation went back " + prev.currentGeneration() + " -> " + m.currentGeneration());
        }
        if (m.replayAfterWalEntryPosition() < prev.replayAfterWalEntryPosition()) {
            problems.add(step + "replay_after_wal_entry_position went back " + prev.replayAfterWalEntryPosition()
                    + " -> " + m.replayAfterWalEntryPosition());
        }
        if (!Objects.equals(prev.shardId(), m.shardId())) {
            problems.add(step + "shard_id changed " + prev.shardId() + " -> " + m.shardId());
        }
        return problems;
    }
}
