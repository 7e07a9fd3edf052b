package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The three shares of a sandbox together, with the real virtiofsd. */
class ShareSetTest {

    @RegisterExtension
    static final LauncherUnderTest fixture = new LauncherUnderTest("vfsd-set");
    private Path sandboxDir;
    private Path run;

    @BeforeEach
    void dirs() throws IOException {
        sandboxDir = Files.createTempDirectory(fixture.base(), "sb");
        run = Files.createDirectories(sandboxDir.resolve("run"));
        for (ShareKind kind : ShareKind.values()) {
            Files.createDirectories(sandboxDir.resolve(kind.shortName()));
        }
    }

    private List<ShareSpec> specs() {
        Map<ShareKind, Path> dirs = new EnumMap<>(ShareKind.class);
        for (ShareKind kind : ShareKind.values()) dirs.put(kind, sandboxDir.resolve(kind.shortName()));
        List<ShareSpec> specs = ShareSet.specs("sb-set", dirs, run, ShareOptions.DEFAULT);
        assertThat(specs).extracting(ShareSpec::kind).containsExactly(ShareKind.values());
        return specs;
    }

    @Test
    void startsAllThreeWhoseSocketsAcceptAndStopLeavesNoProcessNorSocket() throws Exception {
        ShareSet set = ShareSet.start(fixture.launcher(), specs());

        assertThat(set.processes()).containsOnlyKeys(ShareKind.values());
        assertThat(set.socketsByTag()).containsOnlyKeys("ateRootfs", "ateDurable", "ateSystemInfo");
        assertThat(set.records()).extracting(ShareProcessRecord::pid)
                .containsExactlyInAnyOrderElementsOf(set.processes().values().stream().map(VirtiofsdProcess::pid).toList());
        for (VirtiofsdProcess process : set.processes().values()) {
            try (VhostUserFrontend frontend = VhostUserFrontend.connect(process.socketPath())) {
                assertThat(frontend.getFeatures() & VhostUserFrontend.PROTOCOL_FEATURES_BIT).as(process.toString()).isNotZero();
                // keep it connected while stopping: a disconnect would end it by itself
                if (process.kind() == ShareKind.SYSTEM_INFO) stopAndCheck(set);
            }
        }
    }

    private void stopAndCheck(ShareSet set) throws IOException {
        Map<ShareKind, VirtiofsdExit> exits = set.stop();
        assertThat(exits).containsOnlyKeys(ShareKind.values());
        assertThat(exits.values()).allMatch(e -> e.reason() != VirtiofsdExit.Reason.CRASHED);
        for (VirtiofsdProcess process : set.processes().values()) {
            assertThat(process.isAlive()).isFalse();
        }
        assertThat(ProcessLeaks.mentioning(sandboxDir)).isEmpty();
        try (var files = Files.list(run)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("only logs remain in the run dir")
                    .containsExactlyInAnyOrder("rootfs.log", "durable.log", "sysinfo.log");
        }
    }

    @Test
    void aShareFailingToStartStopsTheOthersAndIsNamed() throws IOException {
        // a virtiofsd that refuses to serve the system-info share only
        Path wrapper = sandboxDir.resolve("virtiofsd");
        Files.writeString(wrapper, "#!/bin/sh\ncase \"$*\" in\n  *--tag=ateSystemInfo*) sleep 0.3; echo 'Error: boom on system-info' >&2; exit 3;;\nesac\n"
                + "exec '" + TestVirtiofsd.binaryPath() + "' \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (VirtiofsdLauncher flaky = new VirtiofsdLauncher(VirtiofsdBinary.probe(wrapper), fixture.launcher().settings())) {
            assertThatThrownBy(() -> ShareSet.start(flaky, specs()))
                    .isInstanceOfSatisfying(ShareStartException.class,
                            e -> assertThat(e.failedShare()).isEqualTo(ShareKind.SYSTEM_INFO))
                    .hasMessageContaining("sandbox sb-set: share ateSystemInfo failed to start")
                    .hasMessageContaining("exit status 3")
                    .hasMessageContaining("boom on system-info")
                    .hasMessageContaining("stopped the shares that had started (ateRootfs, ateDurable)");
            assertThat(flaky.running()).isEmpty();
        }
        assertThat(ProcessLeaks.mentioning(sandboxDir)).isEmpty();
        try (var files = Files.list(run)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".sock") || n.endsWith(".pid"));
        }
    }

    @Test
    void badSpecStartsNothing() throws IOException {
        List<ShareSpec> specs = new ArrayList<>(specs());
        Path missing = sandboxDir.resolve("no-such-durable");
        specs.set(1, ShareSpec.inRunDir("sb-set", ShareKind.DURABLE, missing, run, ShareOptions.DEFAULT));

        assertThatThrownBy(() -> ShareSet.start(fixture.launcher(), specs))
                .isInstanceOf(VirtiofsdException.class)
                .hasMessageContaining("share ateDurable: shared dir " + missing + " does not exist");
        assertThat(ProcessLeaks.mentioning(sandboxDir)).isEmpty();
        try (var files = Files.list(run)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void twoSharesOnOneSocketAreRefused() {
        List<ShareSpec> specs = specs();
        List<ShareSpec> clashing = List.of(specs.get(0), specs.get(1).withSocketPath(specs.get(0).socketPath()));
        assertThatThrownBy(() -> ShareSet.start(fixture.launcher(), clashing))
                .hasMessageContaining("is used by two shares");
        assertThat(ProcessLeaks.mentioning(sandboxDir)).isEmpty();
    }

    @Test
    void restartBringsUpAFreshSetOnNewSockets() throws Exception {
        ShareSet first = ShareSet.start(fixture.launcher(), specs());
        ShareSet second = first.restart(fixture.launcher(), spec -> run.resolve(spec.kind().shortName() + "-2.sock"));
        try {
            assertThat(first.processes().values()).noneMatch(VirtiofsdProcess::isAlive);
            assertThat(second.socketsByTag().get("ateDurable")).isEqualTo(run.resolve("durable-2.sock"));
            for (VirtiofsdProcess process : second.processes().values()) {
                assertThat(process.isAlive()).isTrue();
                assertThat(first.get(process.kind()).socketPath()).doesNotExist();
            }
        } finally {
            second.stop();
        }
    }
}
