/**
 * Consumer records: how far each continuous read with a consumer id got, for garbage collection
 * to keep what it still needs.
 */
package io.walsink.format.consumer;
