package dev.ateom.microvm.systeminfo.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.microvm.systeminfo.spec.FileMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VolumeWriterTest {
    @TempDir
    Path tmp;

    static VolumeFile file(String path, String content) {
        return file(path, content, 0444);
    }

    static VolumeFile file(String path, String content, int mode) {
        return new VolumeFile(path, new FileMode(mode), new FileContent.Bytes(content.getBytes(StandardCharsets.UTF_8)));
    }

    static String read(Path p) throws IOException {
        return Files.readString(p);
    }

    private VolumeWriter writer(int retained) {
        return new VolumeWriter(tmp.resolve("system-info/vol"), Ownership.DAEMON, retained, "test volume");
    }

    /** Every regular file under {@code dir}, relative path to content. */
    static Map<String, String> filesUnder(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                out.put(dir.relativize(p).toString(), read(p));
            }
        }
        return out;
    }

    @Test
    void laysOutDataDirectoryRelativeSymlinksModesAndOwners() throws Exception {
        VolumeWriter writer = new VolumeWriter(tmp.resolve("vol"), new Ownership(1234, 5678), 2, "test volume");
        writer.commitWhileRunning(VolumeContent.of(file("tls.key", "KEY", 0440), file("certs/ca.pem", "CA")));

        Path vol = tmp.resolve("vol");
        assertThat(Files.isDirectory(vol.resolve("..data"), LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(Files.readSymbolicLink(vol.resolve("tls.key"))).isEqualTo(Path.of("..data/tls.key"));
        assertThat(Files.readSymbolicLink(vol.resolve("certs"))).isEqualTo(Path.of("..data/certs"));
        assertThat(read(vol.resolve("tls.key"))).isEqualTo("KEY");
        assertThat(read(vol.resolve("certs/ca.pem"))).isEqualTo("CA");
        assertThat(mode(vol.resolve("..data/tls.key"))).isEqualTo(0440);
        assertThat(mode(vol.resolve("..data/certs/ca.pem"))).isEqualTo(0444);
        assertThat(mode(vol.resolve("..data/certs"))).isEqualTo(0755);
        assertThat(mode(vol.resolve("..data"))).isEqualTo(0755);
        for (Path p : List.of(vol, vol.resolve("..data"), vol.resolve("..data/certs"), vol.resolve("..data/tls.key"),
                vol.resolve("..data/certs/ca.pem"), vol.resolve("tls.key"), vol.resolve("certs"))) {
            assertThat(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).as(p.toString()).isEqualTo(1234);
            assertThat(Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS)).as(p.toString()).isEqualTo(5678);
        }
        assertThat(writer.generationsNewestFirst()).isEmpty();
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    @Test
    void runningCommitsKeepEarlierGenerationsUntouchedAtStableNamesThenDropTheOldest() throws Exception {
        VolumeWriter writer = writer(3);
        Path vol = writer.volumeDir();
        Map<Path, String> realFiles = new LinkedHashMap<>(); // every real file ever visible, with its content
        for (int gen = 1; gen <= 8; gen++) {
            writer.commitWhileRunning(VolumeContent.of(file("a", "a" + gen), file("d/b", "b" + gen)));
            assertThat(read(vol.resolve("a"))).isEqualTo("a" + gen);
            assertThat(read(vol.resolve("d/b"))).isEqualTo("b" + gen);
            List<Path> generations = writer.generationsNewestFirst();
            assertThat(generations).hasSize(Math.min(gen - 1, 3));
            for (Path dir : generations) {
                // a retained generation's files are exactly what they were when first visible
                for (var entry : filesUnder(dir).entrySet()) {
                    Path real = dir.resolve(entry.getKey());
                    String before = realFiles.values().stream().filter(entry.getValue()::equals).findAny().orElse(null);
                    assertThat(before).as("content of retained %s was visible before", real).isNotNull();
                }
            }
            realFiles.clear();
            for (Path dir : concat(vol.resolve("..data"), generations)) {
                filesUnder(dir).forEach((k, v) -> realFiles.put(dir.resolve(k), v));
            }
        }
        // commit n stages at ..gen-(n-1), which after the exchange holds generation n-1
        List<Path> generations = writer.generationsNewestFirst();
        assertThat(generations).extracting(p -> p.getFileName().toString()).containsExactly("..gen-7", "..gen-6", "..gen-5");
        assertThat(read(generations.get(0).resolve("a"))).isEqualTo("a7");
        assertThat(read(generations.get(2).resolve("a"))).isEqualTo("a5");
    }

    private static List<Path> concat(Path first, List<Path> rest) {
        List<Path> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    @Test
    void savedCommitRewritesEveryRetainedGenerationAtItsOwnPath() throws Exception {
        VolumeWriter writer = writer(3);
        Path vol = writer.volumeDir();
        for (int gen = 1; gen <= 5; gen++) {
            writer.commitWhileRunning(VolumeContent.of(file("name", "old-" + gen), file("sub/x", "x" + gen)));
        }
        // the paths a guest could hold at save time: every real file in ..data and the retained generations
        List<Path> held = new ArrayList<>();
        for (Path dir : concat(vol.resolve("..data"), writer.generationsNewestFirst())) {
            filesUnder(dir).keySet().forEach(k -> held.add(dir.resolve(k)));
        }
        assertThat(held).hasSize(8);

        writer.commitWhileSaved(VolumeContent.of(file("name", "new"), file("sub/x", "x-new")));

        for (Path p : held) {
            assertThat(read(p)).as(p.toString()).isEqualTo(p.getFileName().toString().equals("name") ? "new" : "x-new");
        }
        assertThat(writer.generationsNewestFirst()).hasSize(3);
        assertThat(read(vol.resolve("name"))).isEqualTo("new");
    }

    @Test
    void savedCommitDropsGenerationsBeyondTheRetainedOnes() throws Exception {
        VolumeWriter many = writer(5);
        for (int gen = 1; gen <= 7; gen++) {
            many.commitWhileRunning(VolumeContent.of(file("f", "v" + gen)));
        }
        assertThat(many.generationsNewestFirst()).hasSize(5);
        VolumeWriter fewer = writer(2);
        fewer.commitWhileSaved(VolumeContent.of(file("f", "saved")));
        assertThat(fewer.generationsNewestFirst()).extracting(p -> p.getFileName().toString())
                .containsExactly("..gen-6", "..gen-5");
        for (Path dir : fewer.generationsNewestFirst()) {
            assertThat(read(dir.resolve("f"))).isEqualTo("saved");
        }
    }

    @Test
    void addsAndRemovesTopLevelNames() throws Exception {
        VolumeWriter writer = writer(2);
        Path vol = writer.volumeDir();
        writer.commitWhileRunning(VolumeContent.of(file("a", "1"), file("b", "1")));
        writer.commitWhileRunning(VolumeContent.of(file("b", "2"), file("c/d", "2")));

        assertThat(Files.exists(vol.resolve("a"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(read(vol.resolve("b"))).isEqualTo("2");
        assertThat(read(vol.resolve("c/d"))).isEqualTo("2");
        // the previous generation still holds 'a' for a guest that opened it
        assertThat(read(writer.generationsNewestFirst().getFirst().resolve("a"))).isEqualTo("1");
        try (Stream<Path> entries = Files.list(vol)) {
            assertThat(entries.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("..")))
                    .containsExactlyInAnyOrder("b", "c");
        }
    }

    @Test
    void neverFollowsSymlinksPlantedInTheVolume() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("a"), "precious");
        VolumeWriter writer = writer(2);
        Path vol = writer.volumeDir();
        writer.commitWhileRunning(VolumeContent.of(file("a", "1")));
        Files.delete(vol.resolve("a"));
        Files.createSymbolicLink(vol.resolve("a"), outside.resolve("a"));
        Files.createSymbolicLink(vol.resolve("..gen-50"), outside);

        writer.commitWhileSaved(VolumeContent.of(file("a", "2")));
        writer.commitWhileRunning(VolumeContent.of(file("a", "3")));

        assertThat(read(outside.resolve("a"))).isEqualTo("precious");
        try (Stream<Path> entries = Files.list(outside)) {
            assertThat(entries).hasSize(1);
        }
        assertThat(Files.readSymbolicLink(vol.resolve("a"))).isEqualTo(Path.of("..data/a"));
        assertThat(read(vol.resolve("a"))).isEqualTo("3");
        assertThat(Files.isDirectory(vol.resolve("..gen-50"), LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(read(vol.resolve("..gen-50/a"))).isEqualTo("2");

        Path linkedVolume = tmp.resolve("linked");
        Files.createSymbolicLink(linkedVolume, outside);
        VolumeWriter viaLink = new VolumeWriter(linkedVolume, Ownership.DAEMON, 2, "sandbox s volume linked");
        assertThatThrownBy(() -> viaLink.commitWhileRunning(VolumeContent.of(file("b", "x"))))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("sandbox s volume linked")
                .hasMessageContaining("is not a directory (symlinks are never followed)");
        assertThat(Files.exists(outside.resolve("..data"))).isFalse();
    }

    @Test
    void holdsDetectsAnyDifferenceOnDisk() throws Exception {
        VolumeWriter writer = writer(2);
        Path vol = writer.volumeDir();
        VolumeContent content = VolumeContent.of(file("a", "1"), file("d/b", "2", 0440));
        String digest = ContentDigest.of(content);
        assertThat(writer.holds(content, digest)).isFalse();
        writer.commitWhileRunning(content);
        assertThat(writer.holds(content, digest)).isTrue();

        Files.setAttribute(vol.resolve("..data/d/b"), "unix:mode", 0444);
        assertThat(writer.holds(content, digest)).as("mode changed").isFalse();
        writer.commitWhileRunning(content);
        Files.writeString(vol.resolve("..data/a"), "tampered");
        assertThat(writer.holds(content, digest)).as("content changed").isFalse();
        writer.commitWhileRunning(content);
        Files.delete(vol.resolve("d"));
        assertThat(writer.holds(content, digest)).as("link missing").isFalse();
        writer.commitWhileRunning(content);
        Files.createSymbolicLink(vol.resolve("extra"), Path.of("..data/extra"));
        assertThat(writer.holds(content, digest)).as("extra name").isFalse();
        writer.commitWhileRunning(content);
        assertThat(writer.holds(content, digest)).isTrue();
    }

    /**
     * Invariants 1, 3 and 4 on the host side over a random sequence of running and saved commits:
     * while running no real path of a retained generation disappears or changes; after a saved
     * commit every path a guest could have held (all retained generations) holds the newest content.
     */
    @Test
    void randomSequencesOfRunningAndSavedCommitsKeepTheInvariants(@TempDir(factory = MemoryBackedTempDir.class) Path tmp)
            throws Exception {
        Random random = new Random(20261130);
        for (int run = 0; run < 5; run++) {
            int retained = 1 + random.nextInt(4);
            VolumeWriter writer = new VolumeWriter(tmp.resolve("seq" + run), Ownership.DAEMON, retained, "seq");
            Path vol = writer.volumeDir();
            Map<Path, String> visible = new TreeMap<>();
            for (int step = 0; step < 60; step++) {
                VolumeContent content = randomContent(random, step);
                boolean saved = random.nextInt(4) == 0;
                if (saved) {
                    writer.commitWhileSaved(content);
                } else {
                    writer.commitWhileRunning(content);
                }
                Map<Path, String> now = new TreeMap<>();
                List<Path> generations = writer.generationsNewestFirst();
                assertThat(generations.size()).isLessThanOrEqualTo(retained);
                for (Path dir : concat(vol.resolve("..data"), generations)) {
                    filesUnder(dir).forEach((k, v) -> now.put(dir.resolve(k), v));
                }
                Map<String, String> newest = new TreeMap<>();
                for (VolumeFile f : content.files()) {
                    newest.put(f.path(), new String(((FileContent.Bytes) f.content()).data(), StandardCharsets.UTF_8));
                }
                if (saved) {
                    for (Path dir : concat(vol.resolve("..data"), generations)) {
                        assertThat(filesUnder(dir)).as("retained %s after saved commit", dir).isEqualTo(newest);
                    }
                } else {
                    for (var e : visible.entrySet()) {
                        Path dir = generationDirOf(vol, e.getKey());
                        boolean stillRetained = generations.contains(dir) || isPreviousData(dir, generations);
                        if (stillRetained) {
                            assertThat(now).as("path %s of a retained generation", e.getKey()).containsKey(resolveAfterSwap(vol, e.getKey(), generations));
                        }
                    }
                    assertThat(filesUnder(vol.resolve("..data"))).isEqualTo(newest);
                    for (Path dir : generations.subList(Math.min(1, generations.size()), generations.size())) {
                        for (var e : filesUnder(dir).entrySet()) {
                            assertThat(visible).as("older generation %s unchanged", dir).containsEntry(dir.resolve(e.getKey()), e.getValue());
                        }
                    }
                    if (!generations.isEmpty()) {
                        // the newest retained generation holds exactly what ..data held before
                        Map<String, String> previousData = new TreeMap<>();
                        visible.forEach((p, v) -> {
                            if (p.startsWith(vol.resolve("..data"))) {
                                previousData.put(vol.resolve("..data").relativize(p).toString(), v);
                            }
                        });
                        assertThat(filesUnder(generations.getFirst())).isEqualTo(previousData);
                    }
                }
                visible = now;
                for (String name : content.topLevelNames()) {
                    assertThat(Files.readSymbolicLink(vol.resolve(name))).isEqualTo(Path.of("..data/" + name));
                }
            }
        }
    }

    private static Path generationDirOf(Path vol, Path file) {
        return vol.resolve(vol.relativize(file).getName(0));
    }

    private static boolean isPreviousData(Path dir, List<Path> generations) {
        return dir.getFileName().toString().equals("..data") && !generations.isEmpty();
    }

    /** A running commit moves the previous ..data content to the newest ..gen-n: that is where its paths live on. */
    private static Path resolveAfterSwap(Path vol, Path file, List<Path> generations) {
        Path dir = generationDirOf(vol, file);
        if (dir.getFileName().toString().equals("..data")) {
            return generations.getFirst().resolve(dir.relativize(file));
        }
        return file;
    }

    private static VolumeContent randomContent(Random random, int step) {
        List<VolumeFile> files = new ArrayList<>();
        String[] names = {"a", "b", "dir/c", "dir/d", "other/e/f"};
        for (String name : names) {
            if (random.nextInt(5) > 0) {
                files.add(file(name, name + "@" + step + "#" + random.nextInt(1000), random.nextBoolean() ? 0444 : 0440));
            }
        }
        if (files.isEmpty()) {
            files.add(file("a", "only@" + step));
        }
        return new VolumeContent(files);
    }
}
