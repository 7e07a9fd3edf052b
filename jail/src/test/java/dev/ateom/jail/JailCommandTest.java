package dev.ateom.jail;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JailCommandTest {
    private static final Path LAUNCHER = Path.of("/opt/ateom/bin/ateom-jail");

    @Test
    void everyPartOfTheSpecBecomesAnOptionBeforeTheProgram() {
        var spec = new JailSpec(1900000001, 1900000002, OptionalInt.of(105), Path.of("/run/ateom/jail/x"),
                List.of(BindMount.readOnly(Path.of("/usr/bin/chv")), new BindMount(Path.of("/run/x/e1"), Path.of("/run"), false)),
                List.of(Path.of("/dev/null")), Optional.of(Path.of("/run/netns/slot-3")), List.of(Path.of("/sys/fs/cgroup/ateom/x")),
                Map.of(Rlimit.NOFILE, 4096L, Rlimit.CORE, 0L), List.of(Path.of("/run")), List.of(Path.of("/usr/bin/chv")), true, true);
        assertThat(JailCommand.argv(LAUNCHER, spec, true, List.of("/usr/bin/chv", "--api-socket", "/run/api.sock"))).containsExactly(
                "/opt/ateom/bin/ateom-jail", "--uid", "1900000001", "--gid", "1900000002", "--kvm-gid", "105", "--root", "/run/ateom/jail/x",
                "--ro-bind", "/usr/bin/chv", "/usr/bin/chv", "--bind", "/run/x/e1", "/run", "--dev", "/dev/null",
                "--netns", "/run/netns/slot-3", "--cgroup", "/sys/fs/cgroup/ateom/x",
                "--rlimit", "nofile", "4096", "--rlimit", "core", "0",
                "--landlock-rw", "/run", "--landlock-ro", "/usr/bin/chv", "--proc", "--landlock-deny-tcp", "--die-with-parent",
                "--", "/usr/bin/chv", "--api-socket", "/run/api.sock");
    }

    @Test
    void noNetnsMeansANewEmptyOne() {
        var spec = new JailSpec(5, 5, OptionalInt.empty(), Path.of("/r"), List.of(), List.of(), Optional.empty(), List.of(), Map.of(),
                List.of(), List.of(), false, false);
        assertThat(JailCommand.prefix(LAUNCHER, spec, false)).containsExactly("/opt/ateom/bin/ateom-jail", "--uid", "5", "--gid", "5",
                "--root", "/r", "--new-netns", "--");
    }

    @Test
    void aPoolMembersMountPointsComeBeforeItsBindsParentsFirstWithLandlocksRules() {
        var spec = VmmJails.spec(new VmmJailRequest(7, OptionalInt.empty(), Path.of("/r"), List.of(), List.of(),
                List.of(Path.of("/run/ateom/.vmm-pool/m1")), List.of(Path.of("/var/lib/ateom/sandboxes"), Path.of("/run/ateom")),
                List.of(Path.of("/srv/images")), Optional.empty(), Optional.empty(), 64, 1 << 20));
        assertThat(spec.mountPoints()).containsExactly(Path.of("/run/ateom"), Path.of("/srv/images"), Path.of("/var/lib/ateom/sandboxes"));
        List<String> argv = JailCommand.prefix(LAUNCHER, spec, true);
        assertThat(argv.subList(0, 13)).containsExactly("/opt/ateom/bin/ateom-jail", "--uid", "7", "--gid", "7", "--root", "/r",
                "--tmpfs", "/run/ateom", "--tmpfs", "/srv/images", "--tmpfs", "/var/lib/ateom/sandboxes");
        assertThat(argv).containsSequence("--bind", "/run/ateom/.vmm-pool/m1", "/run/ateom/.vmm-pool/m1")
                .containsSequence("--landlock-rw", "/var/lib/ateom/sandboxes").containsSequence("--landlock-ro", "/srv/images");
    }

    @Test
    void anInjectionStartedAheadReadsItsBindsNulSeparated() {
        assertThat(JailCommand.injectLater(LAUNCHER, 42)).containsExactly("/opt/ateom/bin/ateom-jail", "--inject", "42", "-");
        byte[] input = JailCommand.injectInput(List.of(BindMount.writable(Path.of("/run/ateom/sb/e1")), BindMount.readOnly(Path.of("/k"))));
        assertThat(new String(input, StandardCharsets.UTF_8))
                .isEqualTo("--bind\0/run/ateom/sb/e1\0/run/ateom/sb/e1\0--ro-bind\0/k\0/k\0");
        assertThatThrownBy(() -> JailCommand.injectInput(List.of())).hasMessageContaining("nothing to inject");
    }

    @Test
    void rootIsRefused() {
        assertThatThrownBy(() -> new JailSpec(0, 5, OptionalInt.empty(), Path.of("/r"), List.of(), List.of(), Optional.empty(), List.of(),
                Map.of(), List.of(), List.of(), false, false)).hasMessageContaining("uid or gid 0");
    }
}
