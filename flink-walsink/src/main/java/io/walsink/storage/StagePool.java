package io.walsink.storage;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The stages of one {@link LocalObjectStore}'s streamed puts, kept between puts: a stage freshly
 * allocated for every put lands on pages the kernel must fault in and zero first, which on a
 * virtual machine cost more than the copy through the stage itself (docs/benchmarks.md). At most
 * {@code kept} idle stages stay allocated, one per put that ran at once, and the store's close
 * frees them. A stage in use when the store closes is freed when its put releases it, so closing
 * never frees memory a put still writes through.
 */
final class StagePool {
    /** A stage's native memory, as an address and a buffer over it. */
    record Stage(long address, ByteBuffer buffer) {}

    private final int bytes;
    private final int kept;
    private final ArrayDeque<Stage> idle = new ArrayDeque<>();
    private boolean closed;
    private int live;
    private long allocations;

    StagePool(int bytes, int kept) {
        if (bytes <= 0 || kept < 0) {
            throw new IllegalArgumentException("stage bytes must be positive and kept stages not negative");
        }
        this.bytes = bytes;
        this.kept = kept;
    }

    /** An idle stage, cleared, or a new one. */
    Stage acquire() {
        synchronized (this) {
            Stage stage = idle.pollFirst();
            if (stage != null) {
                stage.buffer().clear();
                return stage;
            }
        }
        long address = MemoryUtil.allocateMemory(bytes); // counted only once it exists
        synchronized (this) {
            live++;
            allocations++;
        }
        return new Stage(address, MemoryUtil.directBuffer(address, bytes));
    }

    /** Keeps {@code stage} for the next put, or frees it once the pool is closed or holds enough. */
    void release(Stage stage) {
        synchronized (this) {
            if (!closed && idle.size() < kept) {
                idle.addFirst(stage); // the most recently used first: its pages are the likeliest resident
                return;
            }
            live--;
        }
        MemoryUtil.freeMemory(stage.address());
    }

    /** Frees the idle stages; stages in use are freed as they are released. */
    void close() {
        ArrayDeque<Stage> free;
        synchronized (this) {
            closed = true;
            free = new ArrayDeque<>(idle);
            idle.clear();
            live -= free.size();
        }
        free.forEach(stage -> MemoryUtil.freeMemory(stage.address()));
    }

    /** Stages allocated and not yet freed, idle or in use. */
    synchronized int live() {
        return live;
    }

    /** Stages allocated so far. */
    synchronized long allocations() {
        return allocations;
    }
}
