package dev.idem.core.store;

import java.time.Instant;

/** One current object in a listing: what retention needs without reading the object. */
public record ListedObject(String key, long size, Instant lastModified) {}
