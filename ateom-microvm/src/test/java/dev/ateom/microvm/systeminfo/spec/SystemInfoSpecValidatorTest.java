package dev.ateom.microvm.systeminfo.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource.MetadataItem;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource.KeyItem;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class SystemInfoSpecValidatorTest {

    private static VolumeSpec volume(String name, SourceSpec... sources) {
        return new VolumeSpec(name, null, null, null, Arrays.asList(sources));
    }

    private static SourceSpec metadata(String... fieldPathPairs) {
        MetadataItem[] items = new MetadataItem[fieldPathPairs.length / 2];
        for (int i = 0; i < items.length; i++) {
            items[i] = new MetadataItem(fieldPathPairs[2 * i], fieldPathPairs[2 * i + 1]);
        }
        return SourceSpec.of(new ActorMetadataSource(List.of(items)));
    }

    private static SourceSpec host(String path, KeyItem... items) {
        return SourceSpec.of(new HostDirectorySource(path, items.length == 0 ? null : List.of(items)));
    }

    private static List<String> violations(VolumeSpec... volumes) {
        return SystemInfoSpecValidator.validate(new SystemInfoSpec(Arrays.asList(volumes)), "systemInfo").stream()
                .map(SpecViolation::toString).toList();
    }

    @Test
    void acceptsAGoodSpec() {
        assertThat(violations(
                volume("identity", metadata("name", "name", "namespace", "ns", "uid", "meta/uid")),
                volume("tls", host("/var/run/secrets/tls", new KeyItem("tls.crt", "tls/cert.pem", new FileMode(0440)))),
                volume("config", host("/etc/app/"), metadata("name", "actor-name"))))
                .isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/etc/passwd | is absolute",
            "a/../b | contains '..'",
            ".. | contains '..'",
            "a/./b | contains '.'",
            "a//b | has an empty segment ('//' or a trailing '/')",
            "a/ | has an empty segment ('//' or a trailing '/')",
            "..data/x | starts with '..', which is reserved for the volume's own layout",
            "..2026_01_01 | starts with '..', which is reserved for the volume's own layout",
    })
    void rejectsUncleanItemPathsNamingTheField(String path, String reason) {
        assertThat(violations(volume("v", host("/src", new KeyItem("k", "ok", null), new KeyItem("k2", path, null)))))
                .containsExactly("systemInfo.volumes[0].sources[0].hostDirectory.items[1].path: " + reason);
    }

    @Test
    void rejectsControlCharactersEmptyAndOverlongPaths() {
        String longSegment = "x".repeat(256);
        String longPath = ("y".repeat(200) + "/").repeat(21) + "z";
        assertThat(violations(volume("v", metadata("name", "a\nb", "uid", "", "namespace", longSegment))))
                .containsExactly(
                        "systemInfo.volumes[0].sources[0].actorMetadata.items[0].path: contains a control character (U+000A) at index 1",
                        "systemInfo.volumes[0].sources[0].actorMetadata.items[1].path: is empty",
                        "systemInfo.volumes[0].sources[0].actorMetadata.items[2].path: has a segment longer than 255 bytes");
        assertThat(violations(volume("v", metadata("name", longPath))))
                .containsExactly("systemInfo.volumes[0].sources[0].actorMetadata.items[0].path: is longer than 4096 bytes");
        // 255 bytes of UTF-8 is the limit, not 255 characters
        assertThat(violations(volume("v", metadata("name", "é".repeat(128)))))
                .containsExactly("systemInfo.volumes[0].sources[0].actorMetadata.items[0].path: has a segment longer than 255 bytes");
    }

    @Test
    void rejectsDuplicatesAcrossSourcesAndFileDirectoryClashes() {
        assertThat(violations(volume("v",
                metadata("name", "name", "uid", "certs"),
                host("/src", new KeyItem("a", "name", null), new KeyItem("b", "certs/ca.pem", null)),
                metadata("namespace", "dir/file"),
                host("/other", new KeyItem("c", "dir", null)))))
                .containsExactly(
                        "systemInfo.volumes[0].sources[1].hostDirectory.items[0].path: duplicates the path 'name' of systemInfo.volumes[0].sources[0].actorMetadata.items[0].path",
                        "systemInfo.volumes[0].sources[1].hostDirectory.items[1].path: 'certs/ca.pem' lies inside the file 'certs' of systemInfo.volumes[0].sources[0].actorMetadata.items[1].path",
                        "systemInfo.volumes[0].sources[3].hostDirectory.items[0].path: 'dir' is a directory of the file 'dir/file' of systemInfo.volumes[0].sources[2].actorMetadata.items[0].path");
    }

    @Test
    void checksVolumeNamesSourcesFieldsModesAndIds() {
        VolumeSpec badMode = new VolumeSpec("m", new FileMode(04755), -1, 5, List.of(metadata("name", "n")));
        assertThat(violations(
                volume("a/b", metadata("name", "n")),
                volume("..data", metadata("name", "n")),
                volume("dup", metadata("name", "n")),
                volume("dup", metadata("name", "n")),
                volume("empty"),
                volume("both", new SourceSpec(new ActorMetadataSource(List.of()), new HostDirectorySource("/x", null))),
                volume("fields", metadata("hostname", "h"), SourceSpec.of(new ActorMetadataSource(List.of()))),
                volume("hosts", host("relative/dir"), host("/a/../b"), host("/x", new KeyItem("../k", "p", new FileMode(01000)))),
                badMode,
                volume("nulls", (SourceSpec) null)))
                .containsExactly(
                        "systemInfo.volumes[0].name: must be a single path segment (contains '/')",
                        "systemInfo.volumes[1].name: starts with '..', which is reserved for the volume's own layout",
                        "systemInfo.volumes[3].name: duplicates the volume name 'dup' of systemInfo.volumes[2].name",
                        "systemInfo.volumes[4].sources: must list at least one source",
                        "systemInfo.volumes[5].sources[0]: must set exactly one of actorMetadata, hostDirectory",
                        "systemInfo.volumes[6].sources[0].actorMetadata.items[0].field: 'hostname' is not one of name, namespace, uid",
                        "systemInfo.volumes[6].sources[1].actorMetadata.items: must list at least one item",
                        "systemInfo.volumes[7].sources[0].hostDirectory.path: must be an absolute host path",
                        "systemInfo.volumes[7].sources[1].hostDirectory.path: contains '..'",
                        "systemInfo.volumes[7].sources[2].hostDirectory.items[0].key: contains '..'",
                        "systemInfo.volumes[7].sources[2].hostDirectory.items[0].mode: 1000 is outside 0000-0777 (no setuid, setgid or sticky bits)",
                        "systemInfo.volumes[8].defaultMode: 4755 is outside 0000-0777 (no setuid, setgid or sticky bits)",
                        "systemInfo.volumes[8].owner: -1 is not a valid numeric id",
                        "systemInfo.volumes[9].sources[0]: is null");
    }

    @Test
    void requireValidThrowsWithEveryViolationInTheMessage() {
        SystemInfoSpec spec = new SystemInfoSpec(List.of(volume("v", metadata("name", "/abs", "uid", "a/../b"))));
        assertThatThrownBy(() -> SystemInfoSpecValidator.requireValid(spec))
                .isInstanceOf(InvalidSystemInfoSpecException.class)
                .hasMessage("systemInfo.volumes[0].sources[0].actorMetadata.items[0].path: is absolute\n"
                        + "systemInfo.volumes[0].sources[0].actorMetadata.items[1].path: contains '..'")
                .satisfies(e -> assertThat(((InvalidSystemInfoSpecException) e).violations()).hasSize(2));
    }
}
