package io.walsink.format.manifest;

/**
 * Another writer created this manifest version first (put-if-absent lost). The caller must
 * reload the latest manifest and decide again; nothing was written.
 */
public class ManifestVersionTakenException extends RuntimeException {
    private final String location;
    private final long version;

    public ManifestVersionTakenException(String location, long version, Throwable cause) {
        super(location + ": manifest version " + version + " already exists (lost a race; reload)", cause);
        this.location = location;
        this.version = version;
    }

    public String location() {
        return location;
    }

    public long version() {
        return version;
    }
}
