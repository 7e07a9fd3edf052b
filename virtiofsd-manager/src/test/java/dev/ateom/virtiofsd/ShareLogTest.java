package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShareLogTest {

    @TempDir
    Path dir;

    @AfterAll
    static void noVirtiofsdLeft() {
        assertThat(ProcessLeaks.virtiofsdChildrenOfThisJvm()).isEmpty();
    }

    @Test
    void rotatesBySizeKeepingTheNewestGenerations() throws IOException {
        ShareLog log = new ShareLog(dir.resolve("durable.log"), 10, 2);
        Files.writeString(log.file(), "first generation\n");
        assertThat(log.rotateIfLarger()).isTrue();
        Files.writeString(log.file(), "second generation\n");
        assertThat(log.rotateIfLarger()).isTrue();
        Files.writeString(log.file(), "third generation\n");
        assertThat(log.rotateIfLarger()).isTrue();
        Files.writeString(log.file(), "small\n");
        assertThat(log.rotateIfLarger()).isFalse();

        assertThat(log.file()).hasContent("small");
        assertThat(log.generation(1)).hasContent("third generation");
        assertThat(log.generation(2)).hasContent("second generation");
        assertThat(log.generation(3)).doesNotExist();
    }

    @Test
    void anAppendingWriterKeepsWritingAtTheStartAfterRotation() throws IOException {
        ShareLog log = new ShareLog(dir.resolve("rootfs.log"), 10, 1);
        try (FileOutputStream writer = new FileOutputStream(log.file().toFile(), true)) {
            writer.write("before rotation, long enough\n".getBytes(StandardCharsets.UTF_8));
            assertThat(log.rotateIfLarger()).isTrue();
            writer.write("after\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Files.readString(log.file())).isEqualTo("after\n"); // no hole of NUL bytes before it
        assertThat(log.generation(1)).hasContent("before rotation, long enough");
    }

    @Test
    void linesAfterTheMarkerAreThisProcesssEvenAcrossARotation() throws IOException {
        ShareLog log = new ShareLog(dir.resolve("sysinfo.log"), 1 << 20, 1);
        Files.writeString(log.file(), "old process line\n");
        String marker = log.mark("starting sandbox sb share ateSystemInfo");
        assertThat(marker).startsWith("==== ateom ").contains("starting sandbox sb share ateSystemInfo");
        Files.writeString(log.file(), "a\nb\nc\n", StandardOpenOption.APPEND);

        assertThat(log.linesAfter(marker, 10)).containsExactly("a", "b", "c");
        assertThat(log.linesAfter(marker, 2)).containsExactly("b", "c");

        ShareLog tiny = new ShareLog(log.file(), 5, 1);
        assertThat(tiny.rotateIfLarger()).isTrue();
        Files.writeString(log.file(), "d\n", StandardOpenOption.APPEND);
        assertThat(tiny.linesAfter(marker, 10)).as("the marker is in .1 now").containsExactly("a", "b", "c", "d");
        assertThat(tiny.linesAfter("==== never written ====", 10)).as("no marker: everything")
                .containsExactly("old process line", marker, "a", "b", "c", "d");
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "";
    }

    @Test
    void theLauncherRotatesTheLogOfARunningVirtiofsd() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("share"));
        Path run = Files.createDirectories(dir.resolve("run"));
        VirtiofsdLauncher.Settings tiny = VirtiofsdLauncher.Settings.DEFAULT.withLogLimits(100, 3, Duration.ofMillis(20));
        try (VirtiofsdLauncher launcher = new VirtiofsdLauncher(TestVirtiofsd.binary(), tiny)) {
            ShareSpec spec = ShareSpec.inRunDir("sb-log", ShareKind.DURABLE, shared, run, ShareOptions.DEFAULT);
            VirtiofsdProcess process = launcher.start(spec);
            try {
                // virtiofsd's start-up lines alone exceed 100 bytes
                Eventually.until(Duration.ofSeconds(5), () -> Files.exists(run.resolve("durable.log.1")), "the first rotation");
                assertThat(run.resolve("durable.log.1")).content().contains("virtiofsd");
                // whatever virtiofsd wrote after the first rotation is rotated by a later check
                Eventually.until(Duration.ofSeconds(5), () -> Files.size(spec.logFile()) <= 100, "the current log to be rotated down to 100 bytes",
                        () -> Files.size(spec.logFile()) + " bytes");
                String everything = read(run.resolve("durable.log.3")) + read(run.resolve("durable.log.2")) + read(run.resolve("durable.log.1")) + read(spec.logFile());
                assertThat(everything).as("no start-up line lost")
                        .contains("Failure when trying to set the limit", "Waiting for vhost-user socket connection");
                // virtiofsd keeps writing into the file truncated under it, from its start (O_APPEND: no hole)
                launcher.close(); // no more rotation, so the next lines stay in the current file
                try (VhostUserFrontend frontend = VhostUserFrontend.connect(spec.socketPath())) {
                    frontend.getFeatures();
                }
                VirtiofsdExit exit = process.onExit().get(10, TimeUnit.SECONDS);
                assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
                assertThat(Files.readString(spec.logFile())).contains("Client disconnected").doesNotContain("\0");
            } finally {
                process.stop();
            }
        }
    }
}
