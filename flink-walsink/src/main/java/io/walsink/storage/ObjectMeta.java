package io.walsink.storage;

/** What a head or a listing knows about one object. */
public record ObjectMeta(String key, long size) {}
