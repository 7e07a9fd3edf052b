package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Archives built by hand to attack the extractor: each is refused, the entry named, nothing written. */
class HostileArchiveTest {
    @TempDir
    Path temp;

    /** One entry of a hand-built archive. */
    record Item(String name, byte type, String linkName, String content) {
        static Item file(String name) {
            return new Item(name, TarConstants.LF_NORMAL, "", "payload of " + name);
        }

        static Item dir(String name) {
            return new Item(name, TarConstants.LF_DIR, "", "");
        }

        static Item symlink(String name, String target) {
            return new Item(name, TarConstants.LF_SYMLINK, target, "");
        }

        static Item hardLink(String name, String target) {
            return new Item(name, TarConstants.LF_LINK, target, "");
        }

        static Item special(String name, byte type) {
            return new Item(name, type, "", "");
        }
    }

    static Stream<Arguments> hostileArchives() {
        return Stream.of(
                Arguments.of("absolute path", List.of(Item.file("ok"), Item.file("/tmp/ateom-evil")), "/tmp/ateom-evil", "absolute path"),
                Arguments.of("dot-dot at start", List.of(Item.file("../evil")), "../evil", "'..'"),
                Arguments.of("dot-dot inside", List.of(Item.dir("a/"), Item.file("a/../../evil")), "a/../../evil", "'..'"),
                Arguments.of("dot-dot that stays inside", List.of(Item.dir("a/"), Item.file("a/../b")), "a/../b", "'..'"),
                Arguments.of("through absolute symlink", List.of(Item.symlink("link", "/tmp"), Item.file("link/evil")), "link/evil",
                        "symlink 'link'"),
                Arguments.of("through relative symlink", List.of(Item.symlink("up", ".."), Item.file("up/evil")), "up/evil", "symlink 'up'"),
                Arguments.of("through nested symlink", List.of(Item.dir("d/"), Item.symlink("d/l", "/"), Item.dir("d/l/etc/")),
                        "d/l/etc/", "symlink 'd/l'"),
                Arguments.of("hard link to absolute path", List.of(Item.hardLink("h", "/etc/passwd")), "h", "absolute path"),
                Arguments.of("hard link out with dot-dot", List.of(Item.hardLink("h", "../outside")), "h", "'..'"),
                Arguments.of("hard link to a symlink", List.of(Item.symlink("s", "/etc/passwd"), Item.hardLink("h", "s")), "h",
                        "not a regular file"),
                Arguments.of("hard link through a symlink", List.of(Item.symlink("s", "/etc"), Item.hardLink("h", "s/passwd")), "h",
                        "not a regular file"),
                Arguments.of("hard link to nothing yet", List.of(Item.hardLink("h", "later"), Item.file("later")), "h", "not a regular file"),
                Arguments.of("character device", List.of(Item.special("null", TarConstants.LF_CHR)), "null", "character device"),
                Arguments.of("block device", List.of(Item.special("sda", TarConstants.LF_BLK)), "sda", "block device"),
                Arguments.of("fifo", List.of(Item.special("pipe", TarConstants.LF_FIFO)), "pipe", "fifo"),
                Arguments.of("double slash collision", List.of(Item.file("a/b"), Item.file("a//b")), "a//b", "collides"),
                Arguments.of("dot segment collision", List.of(Item.file("x"), Item.file("./x")), "./x", "collides"),
                Arguments.of("file then dir of same name", List.of(Item.file("x"), Item.dir("x/")), "x/", "collides"),
                Arguments.of("symlink then dir of same name", List.of(Item.symlink("x", "/tmp"), Item.dir("x/")), "x/", "collides"),
                Arguments.of("file as a parent", List.of(Item.file("f"), Item.file("f/g")), "f/g", "not a directory"),
                Arguments.of("root as a symlink", List.of(Item.symlink("./", "/etc")), "./", "root must be a directory"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileArchives")
    void isRefusedWithTheEntryNamedAndNothingWritten(String description, List<Item> items, String badEntry, String reason)
            throws IOException {
        Path archive = temp.resolve("hostile.tar");
        write(archive, items);
        Path target = temp.resolve("target");
        assertThatThrownBy(() -> DurableArchive.extract(archive, target))
                .isInstanceOfSatisfying(UnsafeArchiveEntryException.class, e -> assertThat(e.entryName()).isEqualTo(badEntry))
                .hasMessageContaining(reason);
        assertNothingWritten(target);
        assertThat(Path.of("/tmp/ateom-evil")).doesNotExist();
    }

    @Test
    void truncatedArchiveFailsAndLeavesNothing() throws IOException {
        Path archive = temp.resolve("whole.tar");
        write(archive, List.of(Item.dir("d/"), new Item("d/big", TarConstants.LF_NORMAL, "", "x".repeat(100_000))));
        byte[] bytes = Files.readAllBytes(archive);
        Files.write(archive, Arrays.copyOf(bytes, 50_000));
        Path target = temp.resolve("target");
        assertThatThrownBy(() -> DurableArchive.extract(archive, target)).isInstanceOf(IOException.class);
        assertNothingWritten(target);
    }

    @Test
    void archiveCutInsideABigFileFailsAndLeavesNothing() throws IOException {
        Path archive = temp.resolve("whole.tar");
        write(archive, List.of(Item.dir("d/"), new Item("d/big", TarConstants.LF_NORMAL, "", "x".repeat(3 << 20)), Item.file("d/after")));
        byte[] bytes = Files.readAllBytes(archive);
        Files.write(archive, Arrays.copyOf(bytes, 2 << 20));
        Path target = temp.resolve("target");
        assertThatThrownBy(() -> DurableArchive.extract(archive, target)).isInstanceOf(IOException.class)
                .hasMessageContaining("ends inside an entry's data");
        assertNothingWritten(target);
    }

    @Test
    void replaceExistingKeepsTheOldTreeWhenRefused() throws IOException {
        Path archive = temp.resolve("hostile.tar");
        write(archive, List.of(Item.file("fine"), Item.file("../evil")));
        Path target = temp.resolve("target");
        Files.createDirectories(target);
        Files.writeString(target.resolve("keep"), "old");
        assertThatThrownBy(() -> DurableArchive.extract(archive, target, ExtractOptions.DEFAULT.replacingExisting()))
                .isInstanceOf(UnsafeArchiveEntryException.class);
        assertThat(target.resolve("keep")).hasContent("old");
        assertThat(target.resolve("fine")).doesNotExist();
    }

    @Test
    void moreEntriesThanTheManifestListsAreRefusedAndNothingIsLeft() throws IOException {
        Path archive = temp.resolve("many.tar");
        write(archive, IntStream.range(0, 50).mapToObj(i -> Item.file("f" + i)).toList());
        Path target = temp.resolve("target");
        assertThatThrownBy(() -> DurableArchive.extract(archive, target, ExtractOptions.DEFAULT.withMaxEntries(20)))
                .isInstanceOfSatisfying(UnsafeArchiveEntryException.class, e -> assertThat(e.entryName()).isEqualTo("f20"))
                .hasMessageContaining("more than the 20 entries its manifest lists");
        assertNothingWritten(target);
        assertThat(DurableArchive.extract(archive, target, ExtractOptions.DEFAULT.withMaxEntries(50)).entries()).isEqualTo(50);
    }

    @Test
    void benignLayoutsAreAccepted() throws IOException {
        // implicit parents, explicit dir after its children, symlinks pointing anywhere (never followed)
        Path archive = temp.resolve("fine.tar");
        write(archive, List.of(Item.file("a/b/c"), Item.dir("a/"), Item.symlink("abs", "/etc/passwd"),
                Item.symlink("rel", "../../x"), Item.hardLink("a/h", "a/b/c")));
        Path target = temp.resolve("target");
        DurableArchive.extract(archive, target);
        assertThat(target.resolve("a/b/c")).hasContent("payload of a/b/c");
        assertThat(Files.readSymbolicLink(target.resolve("abs"))).isEqualTo(Path.of("/etc/passwd"));
        assertThat(Files.isSameFile(target.resolve("a/h"), target.resolve("a/b/c"))).isTrue();
    }

    private void assertNothingWritten(Path target) throws IOException {
        assertThat(target).doesNotExist();
        try (Stream<Path> siblings = Files.list(temp)) {
            assertThat(siblings.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".tar"))).isEmpty();
        }
    }

    static void write(Path archive, List<Item> items) throws IOException {
        try (OutputStream out = Files.newOutputStream(archive); TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "UTF-8")) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Item item : items) {
                TarArchiveEntry entry = new TarArchiveEntry(item.name(), item.type(), true);
                entry.setName(item.name()); // keep the name exactly, leading slash and all
                entry.setLinkName(item.linkName());
                byte[] content = item.content().getBytes(StandardCharsets.UTF_8);
                entry.setSize(content.length);
                tar.putArchiveEntry(entry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
        }
    }
}
