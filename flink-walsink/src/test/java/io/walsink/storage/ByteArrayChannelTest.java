package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The encoding channel keeps every byte written, in order, whatever the expected size was. */
class ByteArrayChannelTest {
    private static byte[] random(SplittableRandom random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt();
        }
        return b;
    }

    private static ByteBuffer direct(byte[] b) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(b.length);
        buffer.put(b).flip();
        return buffer;
    }

    @Test
    void directAndHeapBuffersPastTheExpectedSizeArrive() throws Exception {
        long seed = 20261204L;
        System.out.println("seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] a = random(random, 100);
        byte[] b = random(random, 5_000); // past the expected size: the array grows
        byte[] c = random(random, 7);
        ByteArrayChannel out = new ByteArrayChannel(128);

        ByteBuffer first = direct(a);
        assertThat(out.write(first)).isEqualTo(100);
        assertThat(first.remaining()).as("consumed").isZero();
        assertThat(out.write(ByteBuffer.wrap(b))).isEqualTo(5_000);
        assertThat(out.write(direct(c))).isEqualTo(7);

        byte[] expected = new byte[5_107];
        System.arraycopy(a, 0, expected, 0, 100);
        System.arraycopy(b, 0, expected, 100, 5_000);
        System.arraycopy(c, 0, expected, 5_100, 7);
        assertThat(out.toArray()).isEqualTo(expected);
    }

    @Test
    void anExactExpectationHandsOverTheArrayAndAShortOneACopyOfItsStart() throws Exception {
        ByteArrayChannel exact = new ByteArrayChannel(64);
        exact.write(direct(new byte[64]));
        assertThat(exact.toArray())
                .as("no copy when the size was exact")
                .isSameAs(exact.toArray())
                .hasSize(64);

        ByteArrayChannel shorter = new ByteArrayChannel(100);
        shorter.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(shorter.toArray()).containsExactly(1, 2, 3);
    }

    @Test
    void aClosedChannelRefusesWrites() {
        ByteArrayChannel out = new ByteArrayChannel(16);
        out.close();
        assertThat(out.isOpen()).isFalse();
        assertThatThrownBy(() -> out.write(ByteBuffer.wrap(new byte[1]))).isInstanceOf(ClosedChannelException.class);
    }
}
