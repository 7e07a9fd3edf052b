package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.fixtures.chv.qemu.QemuMachine;
import dev.ateom.fixtures.chv.qemu.QemuProcess;
import dev.ateom.fixtures.chv.qemu.QmpException;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.fixtures.guest.GuestTools;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture guest under QEMU/TCG with its three real virtiofsd shares and real virtio-vsock
 * (vhost-user-vsock-pci + vhost-device-vsock), driven directly, without the stand-in.
 */
@Tag("guest")
class QemuGuestTest {
    private static final System.Logger LOG = System.getLogger(QemuGuestTest.class.getName());
    private static GuestImage image;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildImage() {
        image = GuestImage.ensureBuilt();
    }

    @Test
    void bootsWithThreeSharesAndAnswersOverRealVsockWhichQemuCannotSave() throws Exception {
        try (var sandbox = new SandboxDirs(dir, image, "A");
             var vsock = VsockDaemon.start(dir.resolve("vsock-backend.sock"), dir.resolve("vsock.sock"), 3)) {
            List<ShareDaemon> shares = sandbox.startShares(1);
            var machine = new QemuMachine(image.vmlinux(), image.initramfs(), GuestCmdline.defaults().render(), 256L << 20, 1,
                    shares.stream().map(s -> new QemuMachine.FsDevice(s.tag(), s.socket())).toList(),
                    new QemuMachine.VhostUserVsock(vsock.backendSocket()), dir.resolve("serial.log"), dir.resolve("qmp.sock"), false, List.of(), null);
            Instant start = Instant.now();
            try (var qemu = QemuProcess.start(GuestTools.qemu(), machine, dir.resolve("qemu.log"), Duration.ofSeconds(30))) {
                var probe = new ProbeClient(vsock.udsPath());
                probe.awaitReady(Duration.ofSeconds(90));
                LOG.log(System.Logger.Level.INFO, "TIMING boot to probe answering over vhost-user vsock: {0} ms",
                        Duration.between(start, Instant.now()).toMillis());

                assertThat(probe.ping()).isEqualTo("pong");
                assertThatThrownBy(() -> new ProbeClient(vsock.udsPath(), 4444, Duration.ofSeconds(5)).ping())
                        .as("vhost-device-vsock closes a CONNECT to a port nothing listens on, like CHV").hasMessageContaining("refused");
                assertThat(probe.whoami().text()).isEqualTo("A");
                assertThat(probe.cat(GuestImage.FIXTURE_FILE).text()).isEqualTo(GuestImage.FIXTURE_FILE_CONTENT);
                assertThat(probe.ls("/run/ate/identity")).containsExactly("..data", "name");
                probe.write("/data/notes/hello.txt", "hello from the guest");
                assertThat(sandbox.durable.resolve("notes/hello.txt")).hasContent("hello from the guest");
                assertThatThrownBy(() -> probe.write("/run/ate/evil", "x")).hasMessageContaining("EPERM");
                assertThat(probe.cat("/run/ate/identity/missing").errno()).isEqualTo("ENOENT");

                Instant later = Instant.now().plus(Duration.ofHours(1));
                probe.setTime(later);
                assertThat(Duration.between(later, probe.time()).abs()).isLessThan(Duration.ofSeconds(5));

                qemu.stop();
                assertThatThrownBy(() -> qemu.saveTo(dir.resolve("state"), Duration.ofSeconds(30)))
                        .isInstanceOf(QmpException.class)
                        .hasMessageContaining("non-migratable device")
                        .hasMessageContaining("vhost-user-vsock");
            }
            for (ShareDaemon share : shares) {
                assertThat(share.exitsWithin(Duration.ofSeconds(5))).as("virtiofsd %s exits with its front-end", share.tag()).isTrue();
            }
        }
    }
}
