package io.walsink.storage;

import io.walsink.annotation.Internal;

/** What a head or a listing knows about one object. */
@Internal
public record ObjectMeta(String key, long size) {}
