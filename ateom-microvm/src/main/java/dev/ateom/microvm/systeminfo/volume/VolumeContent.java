package dev.ateom.microvm.systeminfo.volume;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The complete content of one generation of a volume, sorted by path. Construction rejects
 * duplicate paths and a path lying inside another file, so every instance can be written.
 */
public record VolumeContent(List<VolumeFile> files) {
    public VolumeContent {
        List<VolumeFile> sorted = new ArrayList<>(files);
        sorted.sort(Comparator.comparing(VolumeFile::path));
        for (int i = 1; i < sorted.size(); i++) {
            String previous = sorted.get(i - 1).path();
            String current = sorted.get(i).path();
            if (previous.equals(current)) {
                throw new IllegalArgumentException("path '" + current + "' is produced twice");
            }
        }
        TreeSet<String> paths = new TreeSet<>();
        sorted.forEach(f -> paths.add(f.path()));
        for (VolumeFile file : sorted) {
            String child = paths.ceiling(file.path() + "/");
            if (child != null && child.startsWith(file.path() + "/")) {
                throw new IllegalArgumentException("path '" + child + "' lies inside the file '" + file.path() + "'");
            }
        }
        files = List.copyOf(sorted);
    }

    public static VolumeContent of(VolumeFile... files) {
        return new VolumeContent(List.of(files));
    }

    /** The names the volume exposes at its top level, each a symlink into {@code ..data}. */
    public SortedSet<String> topLevelNames() {
        TreeSet<String> names = new TreeSet<>();
        files.forEach(f -> names.add(f.topLevelName()));
        return names;
    }
}
