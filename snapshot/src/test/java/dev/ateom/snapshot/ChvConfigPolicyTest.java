package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 12 item 7: a config.json edited on disk is refused with the field named; the one CHV wrote passes. */
class ChvConfigPolicyTest {
    private static final ChvConfigPolicy.Expected SAMPLE = new ChvConfigPolicy.Expected("/opt/guest/vmlinux",
            Optional.of("/opt/guest/initramfs.cpio.gz"), 1, 268_435_456L, false);

    static ObjectNode sample() throws IOException {
        try (InputStream in = ChvConfigPolicyTest.class.getResourceAsStream("/chv-samples/config.json")) {
            return (ObjectNode) new ObjectMapper().readTree(in);
        }
    }

    @Test
    void theConfigChvWroteForASandboxPasses() throws IOException {
        assertThat(ChvConfigPolicy.check(sample(), SAMPLE)).isEmpty();
    }

    static Stream<Arguments> tampered() {
        return Stream.of(
                Arguments.of("disks", (Consumer<ObjectNode>) c -> c.putArray("disks").addObject().put("path", "/dev/vda")),
                Arguments.of("pmem", (Consumer<ObjectNode>) c -> c.putArray("pmem").addObject().put("file", "/etc/shadow")),
                Arguments.of("devices", (Consumer<ObjectNode>) c -> c.putArray("devices").addObject().put("path", "/sys/bus/pci/devices/0000:01:00.0")),
                Arguments.of("vdpa", (Consumer<ObjectNode>) c -> c.putArray("vdpa").addObject().put("path", "/dev/vhost-vdpa-0")),
                Arguments.of("payload.kernel", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("payload")).put("kernel", "/etc/shadow")),
                Arguments.of("payload.initramfs", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("payload")).remove("initramfs")),
                Arguments.of("payload.firmware", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("payload")).put("firmware", "/x")),
                Arguments.of("cpus.boot_vcpus", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("cpus")).put("boot_vcpus", 64)),
                Arguments.of("memory.size", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("memory")).put("size", 1L << 40)),
                Arguments.of("rng.src", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("rng")).put("src", "/dev/sda")),
                Arguments.of("net", (Consumer<ObjectNode>) c -> c.putArray("net").addObject().put("tap", "tap0")),
                Arguments.of("debug_console.mode", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("debug_console")).put("mode", "File")
                        .put("file", "/etc/cron.d/x")),
                Arguments.of("serial.mode", (Consumer<ObjectNode>) c -> ((ObjectNode) c.get("serial")).put("mode", "Tty")),
                Arguments.of("landlock_rules.0.path", (Consumer<ObjectNode>) c -> c.putArray("landlock_rules").addObject().put("path", "/")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tampered")
    void anEditedConfigIsRefusedWithTheFieldNamed(String field, Consumer<ObjectNode> edit) throws IOException {
        ObjectNode config = sample();
        edit.accept(config);
        assertThat(ChvConfigPolicy.check(config, SAMPLE)).anySatisfy(problem -> assertThat(problem).startsWith(field));
    }

    @Test
    void aNicIsAcceptedForANetworkedSandbox() throws IOException {
        ObjectNode config = sample();
        config.putArray("net").addObject().put("tap", "tap0").put("mac", "52:54:00:00:00:01");
        assertThat(ChvConfigPolicy.check(config, new ChvConfigPolicy.Expected("/opt/guest/vmlinux",
                Optional.of("/opt/guest/initramfs.cpio.gz"), 1, 268_435_456L, true))).isEmpty();
    }
}
