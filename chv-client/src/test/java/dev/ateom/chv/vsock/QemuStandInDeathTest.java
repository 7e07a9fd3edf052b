package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.ConsoleConfig;
import dev.ateom.chv.CpusConfig;
import dev.ateom.chv.MemoryConfig;
import dev.ateom.chv.PayloadConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.process.ProcessTree;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed stand-in takes its QEMU with it (nothing else would ever stop that guest), before the kill returns. */
@Tag("guest")
class QemuStandInDeathTest {
    @TempDir
    Path dir;

    @Test
    void qemuDiesWithAKilledStandIn() throws Exception {
        GuestImage image = GuestImage.ensureBuilt();
        try (ChvProcess vmm = QemuStandIn.start(dir, "vmm", Duration.ofSeconds(5))) {
            vmm.client().create(new VmConfig(CpusConfig.of(1), MemoryConfig.shared(128L << 20),
                    PayloadConfig.kernel(image.vmlinux().toString(), image.initramfs().toString(), GuestCmdline.defaults().render()),
                    List.of(), null, ConsoleConfig.toFile(dir.resolve("serial.log").toString()), ConsoleConfig.off(), null, null, null));
            vmm.client().boot();
            List<ProcessHandle> qemu = ProcessHandle.of(vmm.pid()).orElseThrow().descendants()
                    .filter(p -> p.info().command().orElse("").contains("qemu-system")).toList();
            assertThat(qemu).as("the stand-in runs one QEMU").hasSize(1);

            // like a real CHV, which dies at once on SIGKILL: when kill returns, QEMU (which holds the guest's TAP) is gone too
            vmm.kill();
            assertThat(ProcessTree.isRunning(qemu.getFirst().pid())).as("QEMU %d still runs after its stand-in's kill returned",
                    qemu.getFirst().pid()).isFalse();
        }
    }
}
