package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Where a table lives, parsed from the user's {@code path}: a local directory or an S3 bucket and prefix. */
@Internal
public sealed interface StorageLocation {

    /** A directory on the local (or a mounted) file system. */
    record Local(Path root) implements StorageLocation {
        @Override
        public String lanceUri() {
            return root.toAbsolutePath().normalize().toString();
        }
    }

    /** A bucket and a key prefix without leading or trailing slash (empty for the bucket root). */
    record S3(String bucket, String prefix) implements StorageLocation {
        @Override
        public String lanceUri() {
            return prefix.isEmpty() ? "s3://" + bucket : "s3://" + bucket + "/" + prefix;
        }
    }

    /** The same location as lance-core (object_store) expects it: an absolute path or s3:// URI. */
    String lanceUri();

    // Any "scheme:" of two or more characters; one letter is a Windows drive (C:\...).
    Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):.*");
    // DNS-style bucket names, lenient enough for S3-compatible servers.
    Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.\\-_]{1,61}[a-z0-9]");

    /**
     * Parses {@code file:///abs/path}, a plain absolute or relative path, or
     * {@code s3://bucket[/prefix]}.
     *
     * @throws IllegalArgumentException naming the path and what is wrong with it
     */
    static StorageLocation parse(String path) {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(
                    "storage path is empty: give file:///dir, a directory, or s3://bucket/prefix");
        }
        var scheme = SCHEME.matcher(path);
        if (!scheme.matches()) {
            return local(path, path);
        }
        switch (scheme.group(1).toLowerCase()) {
            case "file":
                return parseFile(path);
            case "s3":
                return parseS3(path);
            default:
                throw new IllegalArgumentException("storage path '" + path + "' has unsupported scheme '"
                        + scheme.group(1) + "': use file:// or s3://, or a plain path");
        }
    }

    private static StorageLocation parseFile(String path) {
        URI uri;
        try {
            uri = new URI(path);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "storage path '" + path + "' is not a valid file URI: " + e.getMessage(), e);
        }
        if (uri.getAuthority() != null
                && !uri.getAuthority().isEmpty()
                && !uri.getAuthority().equals("localhost")) {
            throw new IllegalArgumentException("storage path '" + path + "' names host '" + uri.getAuthority()
                    + "'; a file URI needs three slashes: file:///absolute/path");
        }
        if (uri.getPath() == null || !uri.getPath().startsWith("/")) {
            throw new IllegalArgumentException(
                    "storage path '" + path + "' is not an absolute file URI: use file:///absolute/path");
        }
        return local(path, uri.getPath());
    }

    private static StorageLocation local(String original, String fsPath) {
        try {
            return new Local(Path.of(fsPath).toAbsolutePath().normalize());
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    "storage path '" + original + "' is not a valid file path: " + e.getMessage(), e);
        }
    }

    private static StorageLocation parseS3(String path) {
        if (!path.regionMatches(true, 0, "s3://", 0, 5)) {
            throw new IllegalArgumentException("storage path '" + path + "' must look like s3://bucket/prefix");
        }
        String rest = path.substring(5);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException("storage path '" + path + "' has no bucket: use s3://bucket/prefix");
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("storage path '" + path + "' has an invalid bucket name '" + bucket
                    + "': 3-63 lower-case letters, digits, '.', '-'");
        }
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (prefix.startsWith("/") || prefix.contains("//")) {
            throw new IllegalArgumentException("storage path '" + path + "' has an empty segment in its key prefix");
        }
        return new S3(bucket, prefix);
    }
}
