package dev.ateom.microvm.vm;

import dev.ateom.chv.ConsoleConfig;
import dev.ateom.chv.CpusConfig;
import dev.ateom.chv.FsConfig;
import dev.ateom.chv.MemoryConfig;
import dev.ateom.chv.PayloadConfig;
import dev.ateom.chv.RngConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.chv.VsockConfig;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.network.GuestNetwork;
import dev.ateom.virtiofsd.ShareKind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CHV {@code VmConfig} of a sandbox: its sizing and payload, the three shares by tag, vsock and the console file.
 * A networked sandbox's NIC is added separately (its TAP is a descriptor); its kernel command line gets the guest's
 * constant address ({@code ip=}), the same in every slot.
 */
public final class VmConfigFactory {
    /** CHV's hybrid vsock needs a guest CID; every sandbox has its own VMM, so the same one is fine. */
    public static final long GUEST_CID = 3;

    private VmConfigFactory() {}

    public static VmConfig forBoot(SandboxSpec spec, SandboxLayout.EpochLayout epoch, Map<ShareKind, Path> sockets) {
        List<FsConfig> fs = new ArrayList<>();
        for (ShareKind kind : ShareKind.values()) {
            fs.add(FsConfig.of(kind.tag(), sockets.get(kind).toString()));
        }
        return new VmConfig(
                CpusConfig.of(spec.vcpus()),
                // vhost-user devices need the guest memory shared with the backends
                MemoryConfig.shared((long) spec.memoryMib() << 20),
                PayloadConfig.kernel(spec.kernel(), spec.initramfs(), cmdline(spec)),
                fs,
                VsockConfig.of(GUEST_CID, epoch.vsockSocket().toString()),
                ConsoleConfig.toFile(epoch.consoleLog().toString()),
                ConsoleConfig.off(),
                RngConfig.urandom(),
                null,
                null);
    }

    static String cmdline(SandboxSpec spec) {
        if (!spec.hasNetwork()) return spec.cmdline();
        String ip = GuestNetwork.kernelIpArgument();
        return spec.cmdline() == null || spec.cmdline().isBlank() ? ip : spec.cmdline() + " " + ip;
    }
}
