package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class VirtiofsdArgvTest {

    private static final Path BINARY = Path.of("/opt/virtiofsd");
    private static final Path RUN = Path.of("/run/ateom/sb1");

    private static ShareSpec spec(ShareKind kind) {
        return ShareSpec.inRunDir("sb1", kind, Path.of("/srv/share/" + kind.shortName()), RUN, ShareOptions.DEFAULT);
    }

    @Test
    void rootfsIsReadOnlyWithCacheAlways() {
        assertThat(VirtiofsdArgv.of(BINARY, spec(ShareKind.ROOTFS))).containsExactly(
                "/opt/virtiofsd",
                "--socket-path=/run/ateom/sb1/rootfs.sock",
                "--shared-dir=/srv/share/rootfs",
                "--tag=ateRootfs",
                "--cache=always",
                "--migration-mode=find-paths",
                "--migration-on-error=abort",
                "--sandbox=namespace",
                "--thread-pool-size=0",
                "--log-level=info",
                "--modcaps=-mknod:-setfcap",
                "--readonly");
    }

    @Test
    void durableIsWritableWithCacheAutoAndNeverWriteback() {
        List<String> argv = VirtiofsdArgv.of(BINARY, spec(ShareKind.DURABLE));
        assertThat(argv).containsExactly(
                "/opt/virtiofsd",
                "--socket-path=/run/ateom/sb1/durable.sock",
                "--shared-dir=/srv/share/durable",
                "--tag=ateDurable",
                "--cache=auto",
                "--migration-mode=find-paths",
                "--migration-on-error=abort",
                "--sandbox=namespace",
                "--thread-pool-size=0",
                "--log-level=info",
                "--modcaps=-mknod:-setfcap");
        assertThat(argv).noneMatch(a -> a.startsWith("--writeback") || a.startsWith("--readonly"));
    }

    @Test
    void systemInfoIsReadOnlyAndTurnsLostInodesIntoGuestErrors() {
        assertThat(VirtiofsdArgv.of(BINARY, spec(ShareKind.SYSTEM_INFO))).containsExactly(
                "/opt/virtiofsd",
                "--socket-path=/run/ateom/sb1/sysinfo.sock",
                "--shared-dir=/srv/share/sysinfo",
                "--tag=ateSystemInfo",
                "--cache=never",
                "--migration-mode=find-paths",
                "--migration-on-error=guest-error",
                "--sandbox=namespace",
                "--thread-pool-size=0",
                "--log-level=info",
                "--modcaps=-mknod:-setfcap",
                "--readonly");
    }

    /** A root guest must not plant device nodes or file capabilities on the host through any share. */
    @ParameterizedTest
    @EnumSource(ShareKind.class)
    void everyShareDropsMknodAndSetfcap(ShareKind kind) {
        assertThat(VirtiofsdArgv.of(BINARY, spec(kind))).contains("--modcaps=-mknod:-setfcap");
    }

    @Test
    void optionsReachTheirFlags() {
        ShareOptions options = new ShareOptions(ShareOptions.SandboxMode.CHROOT, 4, ShareOptions.LogLevel.DEBUG, false);
        assertThat(VirtiofsdArgv.of(BINARY, spec(ShareKind.DURABLE).withOptions(options)))
                .contains("--sandbox=chroot", "--thread-pool-size=4", "--log-level=debug");
    }

    /** Every flag and every value we emit must be one the installed virtiofsd documents. */
    @ParameterizedTest
    @EnumSource(ShareKind.class)
    void everyFlagAndValueIsInTheInstalledHelp(ShareKind kind) {
        VirtiofsdBinary installed = TestVirtiofsd.binary();
        List<String> argv = VirtiofsdArgv.of(installed.path(), spec(kind));
        for (String arg : argv.subList(1, argv.size())) {
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            assertThat(installed.flags()).as("flag %s of %s", flag, kind).contains(flag);
            assertThat(VirtiofsdArgv.REQUIRED_FLAGS).as("REQUIRED_FLAGS lists %s", flag).contains(flag);
        }
        String help = installed.help();
        assertThat(help).contains("find-paths", "guest-error");
        assertThat(help).containsPattern("--cache <CACHE>[\\s\\S]*\\(auto, always, never, metadata\\)");
        assertThat(help).containsPattern("--sandbox <SANDBOX>[\\s\\S]*\\(namespace, chroot, none\\)");
        assertThat(help).containsPattern("--log-level <LOG_LEVEL>[\\s\\S]*\\(error, warn, info, debug, trace, off\\)");
    }

    @Test
    void parentDeathSignalComesFromTheStaticHelperWhenAsked() {
        VirtiofsdLauncher launcher = TestVirtiofsd.launcher();
        try (launcher) {
            ShareSpec dying = spec(ShareKind.ROOTFS);
            // the build's helper (child-process/target), not setpriv: a build always has it
            List<String> command = launcher.commandLine(dying);
            assertThat(Path.of(command.getFirst())).hasFileName("ateom-die-with-parent").isExecutable();
            assertThat(command.subList(1, 3)).containsExactly(Long.toString(ProcessHandle.current().pid()),
                    launcher.binary().path().toString());
            ShareSpec surviving = dying.withOptions(ShareOptions.DEFAULT.withDieWithDaemon(false));
            assertThat(launcher.commandLine(surviving).getFirst()).isEqualTo(launcher.binary().path().toString());
        }
    }
}
