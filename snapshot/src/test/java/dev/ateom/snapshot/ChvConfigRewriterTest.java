package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against the config.json a real CHV v54 wrote (chv-samples/snapshot/config.json). */
class ChvConfigRewriterTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    Path sample;

    @BeforeEach
    void copySample() throws IOException {
        sample = temp.resolve("config.json");
        try (InputStream in = getClass().getResourceAsStream("/chv-samples/config.json")) {
            Files.copy(in, sample);
        }
    }

    static RestoreSockets newSockets() {
        return new RestoreSockets(
                Map.of("ateRootfs", Path.of("/run/ateom/b2/rootfs.sock"),
                        "ateDurable", Path.of("/run/ateom/b2/durable.sock"),
                        "ateSystemInfo", Path.of("/run/ateom/b2/sysinfo.sock")),
                Optional.of(Path.of("/run/ateom/b2/vsock.sock")),
                Optional.of(Path.of("/run/ateom/b2/serial.log")),
                Optional.empty());
    }

    @Test
    void onlyTheSocketAndSerialPathsChange() throws IOException {
        Path out = temp.resolve("rewritten.json");
        ChvConfigRewriter.rewrite(sample, out, newSockets());
        Map<String, String> before = flatten(JSON.readTree(sample.toFile()));
        Map<String, String> after = flatten(JSON.readTree(out.toFile()));
        Map<String, String> changed = new TreeMap<>();
        for (String pointer : after.keySet()) {
            if (!after.get(pointer).equals(before.get(pointer))) {
                changed.put(pointer, after.get(pointer));
            }
        }
        assertThat(after.keySet()).isEqualTo(before.keySet());
        assertThat(changed).containsExactlyInAnyOrderEntriesOf(Map.of(
                "/fs/0/socket", "\"/run/ateom/b2/rootfs.sock\"",
                "/fs/1/socket", "\"/run/ateom/b2/durable.sock\"",
                "/fs/2/socket", "\"/run/ateom/b2/sysinfo.sock\"",
                "/vsock/socket", "\"/run/ateom/b2/vsock.sock\"",
                "/serial/file", "\"/run/ateom/b2/serial.log\""));
        // kernel and initramfs are the image's: unchanged
        assertThat(after.get("/payload/kernel")).isEqualTo("\"/opt/guest/vmlinux\"");
    }

    @Test
    void unknownFieldsAndExactNumbersSurvive() throws IOException {
        // edited as text: a generic JSON parser would already lose "2.50" and the big integer
        String original = Files.readString(sample);
        String edited = original.replaceFirst("^\\{", "{\"future_device\":{\"weird\":[1,2.50,123456789012345678901234567890,null,{\"deep\":true}]},")
                .replace("\"tag\":\"ateDurable\",", "\"tag\":\"ateDurable\",\"future_fs_knob\":\"keep-me\",");
        assertThat(edited).isNotEqualTo(original).contains("future_fs_knob");
        Files.writeString(sample, edited);
        ChvConfigRewriter.rewrite(sample, sample, newSockets());
        String text = Files.readString(sample);
        assertThat(text).contains("\"future_device\":{\"weird\":[1,2.50,123456789012345678901234567890,null,{\"deep\":true}]}");
        assertThat(text).contains("\"future_fs_knob\":\"keep-me\"");
        assertThat(text).contains("\"memory\":{\"size\":268435456,");
    }

    @Test
    void aSnapshotTagWithoutNewSocketFails() {
        Map<String, Path> missing = new HashMap<>(newSockets().fsSocketsByTag());
        missing.remove("ateSystemInfo");
        RestoreSockets sockets = new RestoreSockets(missing, newSockets().vsockSocket(), newSockets().serialPath(), Optional.empty());
        assertThatThrownBy(() -> ChvConfigRewriter.rewrite(sample, temp.resolve("out.json"), sockets))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("fs[2] tag 'ateSystemInfo' has no new socket");
        assertThat(temp.resolve("out.json")).doesNotExist();
    }

    @Test
    void aNewSocketWithoutSnapshotTagFails() {
        Map<String, Path> extra = new HashMap<>(newSockets().fsSocketsByTag());
        extra.put("ateExtra", Path.of("/run/x.sock"));
        RestoreSockets sockets = new RestoreSockets(extra, newSockets().vsockSocket(), newSockets().serialPath(), Optional.empty());
        assertThatThrownBy(() -> ChvConfigRewriter.rewrite(sample, temp.resolve("out.json"), sockets))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("[ateExtra]");
    }

    @Test
    void vsockAndSerialPathsAreRequiredWhenUsed() {
        RestoreSockets noVsock = new RestoreSockets(newSockets().fsSocketsByTag(), Optional.empty(), newSockets().serialPath(), Optional.empty());
        assertThatThrownBy(() -> ChvConfigRewriter.rewrite(sample, temp.resolve("out.json"), noVsock))
                .hasMessageContaining("vsock");
        RestoreSockets noSerial = new RestoreSockets(newSockets().fsSocketsByTag(), newSockets().vsockSocket(), Optional.empty(), Optional.empty());
        assertThatThrownBy(() -> ChvConfigRewriter.rewrite(sample, temp.resolve("out.json"), noSerial))
                .hasMessageContaining("serial.mode is File");
    }

    @Test
    void socketModeConsoleGetsItsSocketRewritten() throws IOException {
        ObjectNode config = (ObjectNode) JSON.readTree(sample.toFile());
        config.set("console", JSON.readTree("{\"mode\":\"Socket\",\"socket\":\"/old/console.sock\",\"pci_segment\":0}"));
        Files.writeString(sample, config.toString());
        RestoreSockets sockets = new RestoreSockets(newSockets().fsSocketsByTag(), newSockets().vsockSocket(), newSockets().serialPath(),
                Optional.of(Path.of("/run/ateom/b2/console.sock")));
        ChvConfigRewriter.rewrite(sample, sample, sockets);
        JsonNode console = JSON.readTree(sample.toFile()).get("console");
        assertThat(console.get("socket").asText()).isEqualTo("/run/ateom/b2/console.sock");
        assertThat(console.get("pci_segment").asInt()).isZero();
    }

    @Test
    void notJsonIsAClearError() throws IOException {
        Files.writeString(sample, "{\"fs\": [");
        assertThatThrownBy(() -> ChvConfigRewriter.rewrite(sample, sample, newSockets()))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("not valid JSON");
    }

    /** JSON pointer → value for every leaf. */
    static Map<String, String> flatten(JsonNode node) {
        Map<String, String> leaves = new TreeMap<>();
        flatten(node, "", leaves);
        return leaves;
    }

    private static void flatten(JsonNode node, String pointer, Map<String, String> leaves) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                flatten(field.getValue(), pointer + "/" + field.getKey(), leaves);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                flatten(node.get(i), pointer + "/" + i, leaves);
            }
        } else {
            leaves.put(pointer, node.toString());
        }
    }
}
