package dev.ateom.snapshot;

import java.nio.file.Path;

/** Run in a child JVM with a given locale: archives args[0] into args[1] and extracts it into args[2]. */
public final class LocaleFreeArchiving {
    private LocaleFreeArchiving() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("sun.jnu.encoding=" + System.getProperty("sun.jnu.encoding"));
        DurableArchive.create(Path.of(args[0]), Path.of(args[1]));
        DurableArchive.extract(Path.of(args[1]), Path.of(args[2]));
    }
}
