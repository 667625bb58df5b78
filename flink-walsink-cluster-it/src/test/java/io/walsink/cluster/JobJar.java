package io.walsink.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * A user's job jar as a user builds it: the shaded connector jar plus the job's classes (the
 * examples), one file submitted with {@code flink run}.
 */
final class JobJar {
    private JobJar() {}

    static Path build(Path connectorJar, Path jobClassesJar, Path out) throws IOException {
        Set<String> written = new HashSet<>();
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(out))) {
            zip.setLevel(Deflater.BEST_SPEED);
            copy(jobClassesJar, zip, written);
            copy(connectorJar, zip, written);
        }
        return out;
    }

    private static void copy(Path jar, ZipOutputStream zip, Set<String> written) throws IOException {
        try (ZipFile in = new ZipFile(jar.toFile())) {
            Enumeration<? extends ZipEntry> entries = in.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                if (!written.add(entry.getName())) {
                    continue; // the job's own manifest and folders come first
                }
                zip.putNextEntry(new ZipEntry(entry.getName()));
                try (InputStream data = in.getInputStream(entry)) {
                    data.transferTo(zip);
                }
                zip.closeEntry();
            }
        }
    }
}
