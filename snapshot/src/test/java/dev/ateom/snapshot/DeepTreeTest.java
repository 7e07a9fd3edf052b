package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths that are legal in a guest (issue 12 item 4): only one name's length may limit archive,
 * extract and delete, never the whole path's (PATH_MAX is 4096 bytes).
 */
class DeepTreeTest {
    private static final int PATH_MAX = 4096;

    @TempDir
    Path temp;

    @Test
    void aFileWhoseHostPathIs4085BytesArchivesExtractsIntoALongerPathAndDeletes() throws IOException {
        Path durable = Files.createDirectory(temp.resolve("durable"));
        int length = durable.toString().length();
        int fd = At.openDirectory(durable);
        // 200-byte directory names while they fit, then a file name that makes the host path exactly 4085 bytes
        while (length + 1 + 200 + 1 + 20 <= 4085) {
            int next = ByteTree.directory(fd, "d".repeat(200).getBytes(StandardCharsets.US_ASCII));
            At.close(fd);
            fd = next;
            length += 201;
        }
        int fileNameLength = 4085 - length - 1;
        ByteTree.file(fd, "f".repeat(fileNameLength).getBytes(StandardCharsets.US_ASCII), "at 4085 bytes");
        At.close(fd);
        Path archive = temp.resolve("durable.tar");
        DurableArchive.create(durable, archive);
        // a clone's durable dir is deeper than the source's: the same file is now beyond PATH_MAX
        Path clone = Files.createDirectories(temp.resolve("sandboxes").resolve("a-clone-with-a-much-longer-id-than-its-source"));
        Path target = clone.resolve("durable");
        DurableArchive.extract(archive, target);
        Map<String, String> extracted = ByteTree.describe(target);
        assertThat(extracted).isEqualTo(ByteTree.describe(durable));
        String deepest = extracted.keySet().stream().max((a, b) -> a.length() - b.length()).orElseThrow();
        assertThat(target.toString().length() + 1 + deepest.length()).isEqualTo(4085 - durable.toString().length()
                + target.toString().length()).isGreaterThan(PATH_MAX);
        TreeDeleter.delete(target);
        TreeDeleter.delete(durable);
        assertThat(target).doesNotExist();
        assertThat(durable).doesNotExist();
    }

    @Test
    void aTreeDeeperThanPathMaxArchivesExtractsAndDeletes() throws IOException {
        Path durable = Files.createDirectory(temp.resolve("durable"));
        deepTree(durable, 2000);
        Path archive = temp.resolve("durable.tar");
        ArchiveSummary written = DurableArchive.create(durable, archive);
        assertThat(written.entries()).isEqualTo(1 + 2000 + 2);
        Path target = temp.resolve("clone-durable");
        assertThat(DurableArchive.extract(archive, target).entries()).isEqualTo(written.entries());
        assertThat(ByteTree.describe(target)).isEqualTo(ByteTree.describe(durable));
        Path resumed = Files.createDirectory(temp.resolve("resumed"));
        DurableArchive.extract(archive, resumed, ExtractOptions.DEFAULT.replacingExisting()); // replaces (and deletes) a tree
        TreeDeleter.delete(target);
        TreeDeleter.delete(durable);
        TreeDeleter.delete(resumed);
        assertThat(target).doesNotExist();
        assertThat(durable).doesNotExist();
        assertThat(resumed).doesNotExist();
    }

    @Test
    void deletingADeepTreeDoesNotFollowSymlinksOut() throws IOException {
        Path outside = Files.createDirectory(temp.resolve("outside"));
        Files.writeString(outside.resolve("keep"), "keep");
        Path durable = Files.createDirectory(temp.resolve("durable"));
        int bottom = deepTree(durable, 300);
        At.symlink(outside.toString().getBytes(StandardCharsets.UTF_8), bottom, "escape".getBytes(StandardCharsets.US_ASCII));
        At.close(bottom);
        TreeDeleter.delete(durable);
        assertThat(durable).doesNotExist();
        assertThat(outside.resolve("keep")).hasContent("keep");
        TreeDeleter.delete(temp.resolve("never-existed")); // a missing tree is not an error
    }

    /**
     * Archiving must be linear in depth (it took 25 s for 2000 levels with path-based calls). Prints
     * times; asserts nothing about them.
     */
    @Test
    void archivingTimeGrowsLinearlyWithDepth() throws IOException {
        StringBuilder table = new StringBuilder("| depth | path bytes | archive ms | extract ms | delete ms |\n|---|---|---|---|---|\n");
        for (int depth : new int[] {500, 1000, 2000}) {
            Path durable = Files.createDirectory(temp.resolve("durable-" + depth));
            At.close(deepTree(durable, depth));
            Path archive = temp.resolve("durable-" + depth + ".tar");
            long start = System.nanoTime();
            DurableArchive.create(durable, archive);
            long archived = System.nanoTime();
            Path out = temp.resolve("out-" + depth);
            DurableArchive.extract(archive, out, ExtractOptions.DEFAULT.withoutSync());
            long extracted = System.nanoTime();
            TreeDeleter.delete(out);
            long deleted = System.nanoTime();
            table.append("| ").append(depth).append(" | ").append(depth * 4).append(" | ").append((archived - start) / 1_000_000)
                    .append(" | ").append((extracted - archived) / 1_000_000).append(" | ").append((deleted - extracted) / 1_000_000).append(" |\n");
            TreeDeleter.delete(durable);
            assertThat(out).doesNotExist();
        }
        System.out.print(table);
        assertThat(Files.exists(temp.resolve("durable-2000"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    /** {@code depth} nested "dir" directories with a file and a symlink at the bottom; answers the bottom, open. */
    private static int deepTree(Path root, int depth) throws IOException {
        int fd = At.openDirectory(root);
        for (int i = 0; i < depth; i++) {
            int next = ByteTree.directory(fd, "dir".getBytes(StandardCharsets.US_ASCII));
            At.close(fd);
            fd = next;
        }
        ByteTree.file(fd, "bottom".getBytes(StandardCharsets.US_ASCII), "at depth " + depth);
        At.symlink("../../..".getBytes(StandardCharsets.US_ASCII), fd, "up".getBytes(StandardCharsets.US_ASCII));
        return fd;
    }
}
