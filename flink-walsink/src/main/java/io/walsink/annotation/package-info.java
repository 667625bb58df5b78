/**
 * Stability marks for walsink's public types: {@link io.walsink.annotation.PublicEvolving} for the
 * API, {@link io.walsink.annotation.Internal} for types public only for other walsink packages.
 * Every public type carries one; {@code PublicApiTest} checks it.
 */
package io.walsink.annotation;
