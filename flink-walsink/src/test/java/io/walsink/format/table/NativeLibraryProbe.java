package io.walsink.format.table;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run in a JVM of its own by {@link LanceNativeLibraryTest}, with nothing but JDK classes on its
 * own class path (as a TaskManager without walsink in lib/) unless told otherwise. Usage:
 * {@code <raw|walsink> <loaders> <class path of the loaders>}; {@code loaders} 0 uses the system
 * classloader. Prints one line per fact the test checks.
 */
public final class NativeLibraryProbe {
    private NativeLibraryProbe() {}

    public static void main(String[] args) throws Exception {
        boolean walsink = args[0].equals("walsink");
        int loaders = Integer.parseInt(args[1]);
        List<URL> urls = new ArrayList<>();
        for (String entry : args[2].split(File.pathSeparator)) {
            urls.add(Paths.get(entry).toUri().toURL());
        }
        List<ClassLoader> used = new ArrayList<>();
        if (loaders == 0) {
            used.add(ClassLoader.getSystemClassLoader());
        }
        for (int i = 0; i < loaders; i++) {
            // A user-code classloader: sees none of the system class path's classes.
            used.add(new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader()));
        }
        for (ClassLoader loader : used) {
            if (walsink) {
                Class.forName("io.walsink.format.table.LanceNativeLibrary", true, loader)
                        .getMethod("ensureLoaded")
                        .invoke(null);
            } else {
                Class.forName("org.lance.JniLoader", true, loader);
            }
        }
        System.out.println("copies in tmpdir: " + copies());
        for (ClassLoader loader : used) {
            System.out.println("native call: " + nativeCall(loader));
        }
        System.exit(0); // lance-core's dispatcher thread may not be a daemon
    }

    private static long copies() throws Exception {
        try (Stream<Path> files = Files.list(Paths.get(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("liblance_jni"))
                    .count();
        }
    }

    /** A native method of lance-core: its failure to find a table proves the library is bound. */
    private static String nativeCall(ClassLoader loader) throws Exception {
        try {
            Class.forName("org.lance.Dataset", true, loader)
                    .getMethod("open", String.class)
                    .invoke(null, "/nonexistent/walsink-probe");
            return "opened?";
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            return cause instanceof LinkageError ? "unbound " + cause : "bound";
        }
    }
}
