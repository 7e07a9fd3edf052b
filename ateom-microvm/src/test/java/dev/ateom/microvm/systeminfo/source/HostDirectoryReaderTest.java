package dev.ateom.microvm.systeminfo.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.ateom.microvm.systeminfo.KubeletStyleSource;
import dev.ateom.microvm.systeminfo.spec.FileMode;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource.KeyItem;
import dev.ateom.microvm.systeminfo.volume.FileContent;
import dev.ateom.microvm.systeminfo.volume.VolumeFile;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostDirectoryReaderTest {
    private static final FileMode MODE = new FileMode(0440);

    @TempDir
    Path tmp;

    private final HostDirectoryReader reader = new HostDirectoryReader(SourceLimits.DEFAULT);

    private static HostDirectorySource all(Path dir) {
        return new HostDirectorySource(dir.toString(), null);
    }

    private static Map<String, String> contents(List<VolumeFile> files) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (VolumeFile f : files) {
            out.put(f.path(), Files.readString(((FileContent.HostFile) f.content()).path()));
        }
        return out;
    }

    @Test
    void readsTheKubeletLayoutThroughDataWithoutItsInternals() throws Exception {
        KubeletStyleSource source = new KubeletStyleSource(tmp.resolve("secret"));
        source.update(Map.of("tls.crt", "CRT1", "tls.key", "KEY1"));
        source.update(Map.of("tls.crt", "CRT2", "tls.key", "KEY2", "nested/ca.crt", "CA2"));

        HostDirectoryReader.Listing listing = reader.read(all(source.dir()), MODE);

        assertThat(contents(listing.files())).containsExactly(
                Map.entry("nested/ca.crt", "CA2"), Map.entry("tls.crt", "CRT2"), Map.entry("tls.key", "KEY2"));
        assertThat(listing.files()).allSatisfy(f -> {
            assertThat(f.mode()).isEqualTo(MODE); // the source's own 0644 is not copied
            Path real = ((FileContent.HostFile) f.content()).path();
            assertThat(real.getParent().getFileName().toString()).matches("\\.\\.\\d{4}_.*|nested");
        });
        // the ..data swap happens in the source dir itself: watching it is enough
        assertThat(listing.watchDirs()).containsExactly(source.dir());
    }

    @Test
    void projectsSelectedKeysAtTheirPathsAndModes() throws Exception {
        KubeletStyleSource source = new KubeletStyleSource(tmp.resolve("secret"));
        source.update(Map.of("tls.crt", "CRT", "tls.key", "KEY", "unused", "x"));

        List<VolumeFile> files = reader.read(new HostDirectorySource(source.dir().toString(), List.of(
                new KeyItem("tls.crt", "certs/server.pem", null),
                new KeyItem("tls.key", "certs/server.key", new FileMode(0400)))), MODE).files();

        assertThat(files).extracting(VolumeFile::path, f -> f.mode().bits())
                .containsExactly(tuple("certs/server.pem", 0440),
                        tuple("certs/server.key", 0400));
        assertThat(contents(files)).containsEntry("certs/server.key", "KEY");

        assertThatThrownBy(() -> reader.read(new HostDirectorySource(source.dir().toString(),
                List.of(new KeyItem("missing", "m", null))), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("key 'missing' does not exist");
    }

    @Test
    void readsAPlainDirectoryRecursivelyFollowingLinksThatStayInside() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("plain/sub"));
        Files.writeString(dir.resolve("a.conf"), "A");
        Files.writeString(tmp.resolve("plain/top"), "T");
        Files.writeString(tmp.resolve("plain/..hidden"), "H");
        Files.createSymbolicLink(tmp.resolve("plain/alias"), Path.of("sub/a.conf"));

        HostDirectoryReader.Listing listing = reader.read(all(tmp.resolve("plain")), MODE);

        assertThat(contents(listing.files())).containsExactly(
                Map.entry("alias", "A"), Map.entry("sub/a.conf", "A"), Map.entry("top", "T"));
        assertThat(listing.watchDirs()).contains(tmp.resolve("plain"), tmp.resolve("plain/sub").toRealPath());
    }

    @Test
    void rejectsALinkLeadingOutsideTheSource() throws Exception {
        Files.writeString(tmp.resolve("passwd"), "root:x:0:0");
        Path dir = Files.createDirectories(tmp.resolve("src"));
        Files.createSymbolicLink(dir.resolve("escape"), tmp.resolve("passwd"));

        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("'escape' is a symlink to " + tmp.resolve("passwd").toRealPath())
                .hasMessageContaining("outside the source directory");

        Files.delete(dir.resolve("escape"));
        Files.createSymbolicLink(dir.resolve("..data"), tmp);
        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("..data points outside the directory");
    }

    @Test
    void rejectsAFifoWithoutOpeningIt() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(dir.resolve("ok"), "ok");
        assertThat(new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).start().waitFor()).isZero();

        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("'pipe' is a FIFO, socket or device, not a regular file");
    }

    @Test
    void rejectsAFileOverTheLimitWithoutReadingIt() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        try (RandomAccessFile huge = new RandomAccessFile(dir.resolve("huge").toFile(), "rw")) {
            huge.setLength(1L << 30); // sparse: 1 GiB that costs no disk
        }

        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("'huge' has 1073741824 bytes, more than the limit of 16777216");
    }

    @Test
    void readsThousandsOfFilesAndRejectsMoreThanTheLimit() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        for (int i = 0; i < 3000; i++) {
            Files.writeString(dir.resolve("f" + i), Integer.toString(i));
        }
        assertThat(reader.read(all(dir), MODE).files()).hasSize(3000);

        HostDirectoryReader strict = new HostDirectoryReader(new SourceLimits(1000, 1024, 1 << 20));
        assertThatThrownBy(() -> strict.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("has more than 1000 files");
    }

    @Test
    void namesAMissingSourceAndOneReplacedByAFile() throws Exception {
        Path dir = tmp.resolve("src");
        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessage("host directory " + dir + " does not exist");
        Files.writeString(dir, "not a directory");
        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessage("host directory " + dir + " is not a directory");
    }

    /** The kubelet removes a volume's files before its directory: that must not read as an empty source. */
    @Test
    void aKubeletDirectoryLosingItsDataLinkIsAnErrorNotAnEmptySource() throws Exception {
        KubeletStyleSource source = new KubeletStyleSource(tmp.resolve("secret"));
        source.update(Map.of("token", "t"));
        assertThat(reader.read(all(source.dir()), MODE).kubeletLayout()).isTrue();

        Files.delete(source.dir().resolve("token"));
        Files.delete(source.dir().resolve("..data"));
        assertThatThrownBy(() -> reader.read(all(source.dir()), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("has kubelet-style '..' entries but no ..data");

        try (var entries = Files.newDirectoryStream(source.dir())) {
            for (Path p : entries) {
                KubeletStyleSource.deleteTree(p);
            }
        }
        assertThat(reader.read(all(source.dir()), MODE).files()).as("a plain empty directory").isEmpty();
        assertThatThrownBy(() -> reader.read(all(source.dir()), MODE, true))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("lost its ..data link");
    }

    @Test
    void rejectsFileNamesThatAreNotCleanPaths() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(dir.resolve("bad\nname"), "x");
        assertThatThrownBy(() -> reader.read(all(dir), MODE))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("contains a control character (U+000A)");
    }
}
