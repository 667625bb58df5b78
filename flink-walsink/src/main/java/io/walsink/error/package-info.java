/**
 * The root of walsink's exceptions ({@link io.walsink.error.WalSinkException}) and its input
 * branch; every layer may use it, it uses nothing but the JDK. docs/operations.md says which
 * exceptions a user is meant to catch.
 */
package io.walsink.error;
