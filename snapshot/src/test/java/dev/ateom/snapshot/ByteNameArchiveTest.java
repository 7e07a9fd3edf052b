package dev.ateom.snapshot;

import static dev.ateom.snapshot.ByteTree.bytes;
import static dev.ateom.snapshot.ByteTree.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File names are bytes (issue 12 item 3): the durable archive carries any name a Linux guest can
 * create, in any locale, and stays readable by GNU tar both ways. Names are made and compared as bytes.
 */
class ByteNameArchiveTest {
    /** Two names that decode to the same text in a UTF-8 locale (both invalid), and friends. */
    static final byte[] BAD_FF_FE = concat("bad", bytes(0xff, 0xfe));
    static final byte[] BAD_FE_FF = concat("bad", bytes(0xfe, 0xff));
    static final byte[] LATIN1 = concat("caf", bytes(0xe9)); // "café" in ISO-8859-1
    static final byte[] UTF8 = "café 日本".getBytes(StandardCharsets.UTF_8);
    static final byte[] CONTROL = concat("ctl", bytes(0x01, 0x7f, '\\', 'x', 'f', 'f'));

    @TempDir
    Path temp;
    Path tree;

    @BeforeEach
    void buildTree() throws IOException {
        tree = Files.createDirectory(temp.resolve("tree"));
        int root = At.openDirectory(tree);
        try {
            for (byte[] name : List.of(BAD_FF_FE, BAD_FE_FF, LATIN1, UTF8, CONTROL)) {
                ByteTree.file(root, name, "content of " + ByteNames.display(name));
            }
            int dir = ByteTree.directory(root, concat("dir-", bytes(0xc3, 0x28))); // invalid 2-byte sequence
            // over 100 bytes in all: needs a PAX path record, which must then say hdrcharset=BINARY
            ByteTree.file(dir, concat("x".repeat(120), bytes(0x80, 0xff)), "long and binary");
            At.symlink(concat("target-", bytes(0xff)), dir, concat("link-", bytes(0xfe)));
            At.symlink(concat("t".repeat(150), bytes(0xfd)), dir, "long-target".getBytes(StandardCharsets.US_ASCII));
            At.link(root, BAD_FF_FE, dir, concat("hard-", bytes(0xf8)));
            At.close(dir);
        } finally {
            At.close(root);
        }
    }

    @Test
    void namesDifferingOnlyInInvalidUtf8BothSurviveARoundTrip() throws IOException {
        Path archive = temp.resolve("ours.tar");
        DurableArchive.create(tree, archive);
        Path out = temp.resolve("out");
        DurableArchive.extract(archive, out);
        Map<String, String> extracted = ByteTree.describe(out);
        assertThat(extracted).containsKeys(ByteNames.display(BAD_FF_FE), ByteNames.display(BAD_FE_FF));
        assertThat(extracted).isEqualTo(ByteTree.describe(tree));
    }

    @Test
    void theDaemonsLocaleDoesNotMatter() throws Exception {
        Map<String, String> expected = ByteTree.describe(tree);
        for (String locale : List.of("C", "C.UTF-8")) {
            Path archive = temp.resolve("forked-" + locale + ".tar");
            Path out = temp.resolve("forked-out-" + locale);
            String encoding = forkedJvm(locale, tree, archive, out);
            assertThat(encoding).as("the forked JVM's sun.jnu.encoding").isEqualTo(locale.equals("C") ? "ANSI_X3.4-1968" : "UTF-8");
            assertThat(ByteTree.describe(out)).as("archived and extracted with LANG=" + locale).isEqualTo(expected);
        }
    }

    @Test
    void gnuTarReadsOurArchiveWithTheSameByteNames() throws Exception {
        assumeTrue(gnuTarInstalled(), "GNU tar not installed");
        Path archive = temp.resolve("ours.tar");
        DurableArchive.create(tree, archive);
        for (String locale : List.of("C", "C.UTF-8")) {
            Path out = Files.createDirectory(temp.resolve("gnu-out-" + locale));
            run(locale, "tar", "--extract", "--file", archive.toString(), "--numeric-owner", "--same-permissions",
                    "--warning=no-unknown-keyword", "-C", out.toString());
            assertThat(ByteTree.describe(out)).as("GNU tar with LANG=" + locale).isEqualTo(ByteTree.describe(tree));
        }
    }

    @Test
    void weExtractGnuTarArchivesWithTheSameByteNames() throws Exception {
        assumeTrue(gnuTarInstalled(), "GNU tar not installed");
        for (String format : List.of("gnu", "posix")) {
            for (String locale : List.of("C", "C.UTF-8")) {
                Path archive = temp.resolve("gnu-" + format + "-" + locale + ".tar");
                run(locale, "tar", "--create", "--format=" + format, "--numeric-owner", "--file", archive.toString(),
                        "-C", tree.toString(), ".");
                Path out = temp.resolve("ours-" + format + "-" + locale);
                DurableArchive.extract(archive, out);
                // the gnu format keeps whole seconds only
                assertThat(wholeSeconds(ByteTree.describe(out))).as("GNU tar --format=" + format + " with LANG=" + locale)
                        .isEqualTo(wholeSeconds(ByteTree.describe(tree)));
            }
        }
    }

    private static Map<String, String> wholeSeconds(Map<String, String> description) {
        Map<String, String> result = new TreeMap<>();
        description.forEach((name, value) -> result.put(name, value.replaceAll("mtime=(\\d+)\\.\\d+", "mtime=$1")));
        return result;
    }

    /** Archives and extracts in a JVM started with the given locale; answers that JVM's sun.jnu.encoding. */
    private static String forkedJvm(String locale, Path source, Path archive, Path out) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LocaleFreeArchiving.class.getName(),
                source.toString(), archive.toString(), out.toString());
        builder.environment().keySet().removeIf(key -> key.startsWith("LC_") || key.equals("LANG") || key.equals("LANGUAGE"));
        builder.environment().put("LANG", locale);
        builder.environment().put("LC_ALL", locale);
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines().filter(line -> line.startsWith("sun.jnu.encoding=")).findFirst().orElseThrow().substring(17);
    }

    static boolean gnuTarInstalled() throws IOException, InterruptedException {
        return new ProcessBuilder("tar", "--version").start().waitFor() == 0;
    }

    private static void run(String locale, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true);
        builder.environment().put("LANG", locale);
        builder.environment().put("LC_ALL", locale);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
