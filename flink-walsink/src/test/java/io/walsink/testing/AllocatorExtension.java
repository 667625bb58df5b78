package io.walsink.testing;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh Arrow {@link RootAllocator} for each test, closed after the test and after its
 * {@code @AfterEach} methods; the test fails if any buffer is still allocated then (what
 * {@link RootAllocator#close()} checks).
 *
 * <pre>{@code
 * @RegisterExtension final AllocatorExtension allocators = new AllocatorExtension();
 * private final BufferAllocator allocator = allocators.allocator();
 * }</pre>
 *
 * <p>Register it on an instance field (one extension per test instance, hence per test).
 */
public final class AllocatorExtension implements AfterEachCallback {
    private final RootAllocator allocator = new RootAllocator();

    public BufferAllocator allocator() {
        return allocator;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        long held = allocator.getAllocatedMemory();
        try {
            allocator.close(); // throws if memory is still allocated
        } catch (IllegalStateException leak) {
            throw new AssertionError(
                    "Arrow memory leaked by " + context.getDisplayName() + " (" + held + " bytes still allocated): "
                            + leak.getMessage(),
                    leak);
        }
    }
}
