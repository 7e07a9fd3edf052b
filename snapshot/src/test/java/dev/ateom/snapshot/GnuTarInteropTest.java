package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Instant;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** durable.tar is plain PAX tar for everything but sparse files: GNU tar reads ours, and we read GNU tar's. */
class GnuTarInteropTest {
    @TempDir
    Path temp;
    Path tree;

    @BeforeEach
    void buildTree() throws IOException, InterruptedException {
        assumeTrue(new ProcessBuilder("tar", "--version").start().waitFor() == 0, "GNU tar not installed");
        tree = temp.resolve("tree");
        Files.createDirectories(tree.resolve("dir/empty"));
        Files.writeString(tree.resolve("dir/plain.txt"), "plain");
        Files.writeString(tree.resolve("dir/" + "long-name-".repeat(15)), "long");
        Files.writeString(tree.resolve("ünïcødé 日本"), "unicode");
        Files.write(tree.resolve("dir/big.bin"), new byte[300_000]);
        Files.createLink(tree.resolve("hardlink"), tree.resolve("dir/plain.txt"));
        Files.createSymbolicLink(tree.resolve("symlink"), Path.of("dir/plain.txt"));
        UserDefinedFileAttributeView view = Files.getFileAttributeView(tree.resolve("dir/plain.txt"), UserDefinedFileAttributeView.class);
        view.write("ateom.note", ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        Files.setAttribute(tree.resolve("dir/plain.txt"), "unix:mode", 04750);
        Files.setAttribute(tree.resolve("dir/plain.txt"), "unix:uid", 1234);
        Files.setAttribute(tree.resolve("dir/plain.txt"), "unix:gid", 5678);
        Files.setAttribute(tree.resolve("dir/empty"), "unix:mode", 0700);
        // microsecond mtimes: both tools carry those exactly
        try (Stream<Path> walk = Files.walk(tree)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                FileTime mtime = FileTime.from(Instant.ofEpochSecond(1_700_000_000L + path.toString().length(), 123_456_000));
                Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(mtime, null, null);
            }
        }
    }

    @Test
    void gnuTarExtractsOurArchive() throws Exception {
        Path archive = temp.resolve("ours.tar");
        DurableArchive.create(tree, archive);
        Path out = Files.createDirectory(temp.resolve("gnu-out"));
        run("tar", "--extract", "--file", archive.toString(), "--xattrs", "--xattrs-include=user.*", "--numeric-owner",
                "--same-permissions", "--warning=no-unknown-keyword", "-C", out.toString());
        assertThat(TreeDescription.of(out)).isEqualTo(TreeDescription.of(tree));
    }

    @Test
    void weExtractGnuTarsArchive() throws Exception {
        Path archive = temp.resolve("gnu.tar");
        run("tar", "--create", "--posix", "--xattrs", "--numeric-owner", "--file", archive.toString(), "-C", tree.toString(), ".");
        Path out = temp.resolve("ours-out");
        DurableArchive.extract(archive, out);
        assertThat(TreeDescription.of(out)).isEqualTo(TreeDescription.of(tree));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
