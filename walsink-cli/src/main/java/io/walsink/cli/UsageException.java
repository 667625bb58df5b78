package io.walsink.cli;

import io.walsink.annotation.Internal;

/** A command line the tool cannot run: the message says what is wrong; exit code 2. */
@Internal
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
