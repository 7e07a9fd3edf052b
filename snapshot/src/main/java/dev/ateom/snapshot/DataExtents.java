package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A file's data extents in file order (SEEK_DATA/SEEK_HOLE); everything between them is holes. */
public final class DataExtents {
    private DataExtents() {
    }

    public static List<Extent> of(Path file) throws IOException {
        try (NativeFile nativeFile = NativeFile.openReadOnly(file)) {
            return nativeFile.dataExtents();
        }
    }
}
