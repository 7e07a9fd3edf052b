package dev.ateom.snapshot;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Builds a random directory tree with everything the durable archive must carry. Same seed, same tree. */
final class RandomTree {
    static final String[] ODD_NAMES = {
        "plain", "with space", "ümlaut-é", "日本語", "tab\there", "new\nline", "-dash", "back\\slash", "a..b", ".hidden",
        "x".repeat(200), "quote'\"", "star*?[", "percent%41",
    };

    private final Random random;
    private final Path root;
    private final List<Path> files = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();

    private RandomTree(long seed, Path root) {
        this.random = new Random(seed);
        this.root = root;
    }

    /** hugeSparse: add one file of more than 8 GiB apparent size with a few data extents. */
    static void create(long seed, Path root, int entries, boolean hugeSparse) throws IOException {
        new RandomTree(seed, root).build(entries, hugeSparse);
    }

    private void build(int entries, boolean hugeSparse) throws IOException {
        Files.createDirectories(root);
        dirs.add(root);
        for (int i = 0; i < entries; i++) {
            Path parent = dirs.get(random.nextInt(dirs.size()));
            Path path = parent.resolve(uniqueName(parent, i));
            switch (random.nextInt(10)) {
                case 0, 1 -> {
                    Files.createDirectory(path);
                    dirs.add(path);
                }
                case 2 -> Files.createSymbolicLink(path, Path.of(symlinkTarget()));
                case 3 -> {
                    if (!files.isEmpty()) {
                        Files.createLink(path, files.get(random.nextInt(files.size())));
                    }
                }
                default -> regularFile(path);
            }
        }
        if (hugeSparse) {
            Path huge = root.resolve("huge-sparse.img");
            try (RandomAccessFile file = new RandomAccessFile(huge.toFile(), "rw")) {
                file.setLength((8L << 30) + 12345);
                for (long offset : new long[] {0, 3L << 30, (8L << 30) + 4096}) {
                    file.seek(offset);
                    file.write(bytes(8192));
                }
            }
            files.add(huge);
        }
        // attributes last: writing into a dir changes its mtime
        for (Path file : files) {
            decorate(file, false);
        }
        for (Path dir : dirs.reversed()) {
            decorate(dir, true);
        }
    }

    private String uniqueName(Path parent, int i) {
        String base = ODD_NAMES[random.nextInt(ODD_NAMES.length)];
        String name = base.length() > 200 ? base.substring(0, 200) + i : base + "-" + i;
        return Files.exists(parent.resolve(name), LinkOption.NOFOLLOW_LINKS) ? name + "x" : name;
    }

    private String symlinkTarget() {
        return switch (random.nextInt(4)) {
            case 0 -> "/etc/passwd";
            case 1 -> "../somewhere/else";
            case 2 -> "dangling-" + random.nextInt(1000);
            default -> "./" + ODD_NAMES[random.nextInt(ODD_NAMES.length)];
        };
    }

    private void regularFile(Path path) throws IOException {
        int kind = random.nextInt(10);
        if (kind == 0) {
            Files.createFile(path); // empty
        } else if (kind == 1) {
            // sparse: data at a few block-aligned places, hole at the end
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                long size = (1 + random.nextInt(8)) << 20;
                file.setLength(size);
                for (int i = 0; i < 3; i++) {
                    file.seek((long) random.nextInt((int) (size / 4096) - 2) * 4096);
                    file.write(bytes(4096 * (1 + random.nextInt(2))));
                }
            }
        } else {
            int size = kind < 8 ? random.nextInt(5000) : random.nextInt(300_000);
            Files.write(path, bytes(size));
        }
        files.add(path);
    }

    private byte[] bytes(int size) {
        byte[] data = new byte[size];
        random.nextBytes(data);
        return data;
    }

    private void decorate(Path path, boolean directory) throws IOException {
        if (random.nextInt(3) == 0) {
            UserDefinedFileAttributeView view = Files.getFileAttributeView(path, UserDefinedFileAttributeView.class);
            view.write("ateom.text", ByteBuffer.wrap(("value " + random.nextInt()).getBytes(StandardCharsets.UTF_8)));
            if (random.nextBoolean()) {
                view.write("ateom.binary", ByteBuffer.wrap(new byte[] {0, (byte) 0xff, (byte) 0xc3, 0x28, 10}));
            }
        }
        int[] ids = {0, 1000, 65534, 100_000, (int) 3_000_000_000L};
        Files.setAttribute(path, "unix:uid", ids[random.nextInt(ids.length)], LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", ids[random.nextInt(ids.length)], LinkOption.NOFOLLOW_LINKS);
        int[] modes = directory ? new int[] {0755, 0700, 01777, 02750, 0555} : new int[] {0644, 0600, 0755, 04755, 02711, 0400, 0};
        Files.setAttribute(path, "unix:mode", modes[random.nextInt(modes.length)], LinkOption.NOFOLLOW_LINKS);
        FileTime mtime = FileTime.from(Instant.ofEpochSecond(1_000_000_000L + random.nextInt(900_000_000), random.nextInt(1_000_000_000)));
        Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(mtime, null, null);
    }
}
