package io.walsink.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

class AllocatorExtensionTest {
    private static final ExtensionContext CONTEXT = (ExtensionContext) Proxy.newProxyInstance(
            AllocatorExtensionTest.class.getClassLoader(),
            new Class<?>[] {ExtensionContext.class},
            (proxy, method, args) -> {
                if (method.getName().equals("getDisplayName")) {
                    return "someTest()";
                }
                throw new UnsupportedOperationException(method.getName());
            });

    @Test
    void passesWhenEverythingWasReleased() {
        AllocatorExtension extension = new AllocatorExtension();
        extension.allocator().buffer(64).close();
        assertThatCode(() -> extension.afterEach(CONTEXT)).doesNotThrowAnyException();
    }

    @Test
    void failsTheTestWhenABufferIsStillHeld() {
        AllocatorExtension extension = new AllocatorExtension();
        extension.allocator().buffer(64); // never released: the closed allocator refuses it afterwards
        assertThatThrownBy(() -> extension.afterEach(CONTEXT))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("someTest()")
                .hasMessageContaining("64 bytes still allocated");
    }
}
