package io.walsink.format.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.flatbuf.Message;

/**
 * Checks the message framing of an Arrow IPC stream before Arrow reads it: every length prefix
 * and every message body must fit inside the bytes at hand. Arrow Java trusts the prefixes and
 * allocates what they claim, so a corrupt prefix would otherwise end in an
 * {@link OutOfMemoryError} (or a huge allocation) instead of a {@link CorruptWalEntryException}.
 */
final class IpcFraming {
    private static final int CONTINUATION = 0xFFFFFFFF;

    private IpcFraming() {}

    static void check(String location, byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        while (in.remaining() >= 4) {
            int start = in.position();
            int length = in.getInt();
            if (length == CONTINUATION) {
                if (in.remaining() < 4) {
                    throw corrupt(location, start, "continuation marker without a length");
                }
                length = in.getInt();
            }
            if (length == 0) {
                return; // end of stream; trailing bytes are judged by the decoder
            }
            if (length < 0 || length > in.remaining()) {
                throw corrupt(
                        location,
                        start,
                        "message metadata of " + Integer.toUnsignedString(length) + " bytes, but only " + in.remaining()
                                + " bytes follow");
            }
            ByteBuffer metadata = in.slice(in.position(), length).order(ByteOrder.LITTLE_ENDIAN);
            long body;
            try {
                body = Message.getRootAsMessage(metadata).bodyLength();
            } catch (RuntimeException e) {
                throw new CorruptWalEntryException(location, "unreadable IPC message at byte " + start + ": " + e, e);
            }
            in.position(in.position() + length);
            if (body < 0 || body > in.remaining()) {
                throw corrupt(
                        location,
                        start,
                        "message body of " + body + " bytes, but only " + in.remaining() + " bytes follow");
            }
            in.position(in.position() + (int) body);
        }
    }

    private static CorruptWalEntryException corrupt(String location, int offset, String why) {
        return new CorruptWalEntryException(
                location, "not a complete Arrow IPC stream: at byte " + offset + ", " + why, null);
    }
}
