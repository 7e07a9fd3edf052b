package dev.ateom.microvm.systeminfo.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import org.junit.jupiter.api.Test;

class SystemInfoSpecJsonTest {
    // Jackson's defaults, as the daemon uses them: unknown properties fail
    private final ObjectMapper mapper = new ObjectMapper();

    private static final String FULL = """
            {"volumes": [
              {"name": "identity", "defaultMode": "0444",
               "sources": [{"actorMetadata": {"items": [{"field": "name", "path": "name"},
                                                       {"field": "uid", "path": "ids/uid"}]}}]},
              {"name": "tls", "defaultMode": 288, "owner": 0, "group": 1000,
               "sources": [{"hostDirectory": {"path": "/var/lib/kubelet/pods/x/volumes/tls",
                                               "items": [{"key": "tls.crt", "path": "cert.pem"},
                                                         {"key": "tls.key", "path": "key.pem", "mode": "0400"}]}}]},
              {"name": "config", "sources": [{"hostDirectory": {"path": "/etc/app"}}]}
            ]}
            """;

    @Test
    void parsesEveryFieldOfTheSpec() throws Exception {
        SystemInfoSpec spec = mapper.readValue(FULL, SystemInfoSpec.class);

        assertThat(spec.volumes()).hasSize(3);
        VolumeSpec identity = spec.volumes().get(0);
        assertThat(identity.name()).isEqualTo("identity");
        assertThat(identity.effectiveDefaultMode().bits()).isEqualTo(0444);
        assertThat(identity.sources().getFirst().actorMetadata().items())
                .extracting(ActorMetadataSource.MetadataItem::metadataField, ActorMetadataSource.MetadataItem::path)
                .containsExactly(tuple(MetadataField.NAME, "name"),
                        tuple(MetadataField.UID, "ids/uid"));

        VolumeSpec tls = spec.volumes().get(1);
        assertThat(tls.defaultMode().bits()).isEqualTo(0440); // 288 decimal, Kubernetes style
        assertThat(tls.owner()).isZero();
        assertThat(tls.group()).isEqualTo(1000);
        HostDirectorySource host = tls.sources().getFirst().hostDirectory();
        assertThat(host.path()).isEqualTo("/var/lib/kubelet/pods/x/volumes/tls");
        assertThat(host.items().get(1).mode().bits()).isEqualTo(0400);
        assertThat(host.items().get(0).mode()).isNull();

        VolumeSpec config = spec.volumes().get(2);
        assertThat(config.defaultMode()).isNull();
        assertThat(config.effectiveDefaultMode().bits()).isEqualTo(0444);
        assertThat(config.sources().getFirst().hostDirectory().projectsAllFiles()).isTrue();
    }

    @Test
    void writesBackWhatItRead() throws Exception {
        SystemInfoSpec spec = mapper.readValue(FULL, SystemInfoSpec.class);
        String json = mapper.writeValueAsString(spec);

        assertThat(json).contains("\"defaultMode\":\"0440\"").doesNotContain("null");
        assertThat(mapper.readValue(json, SystemInfoSpec.class)).isEqualTo(spec);
    }

    @Test
    void rejectsUnknownFieldsAtEveryLevel() {
        for (String json : new String[] {
                "{\"volumes\": [], \"extra\": 1}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [], \"size\": 3}]}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [{\"configMap\": {}}]}]}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [{\"actorMetadata\": {\"items\": [], \"x\": 1}}]}]}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [{\"actorMetadata\": {\"items\": [{\"field\": \"uid\", \"path\": \"u\", \"mode\": \"0444\"}]}}]}]}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [{\"hostDirectory\": {\"path\": \"/x\", \"recursive\": true}}]}]}",
                "{\"volumes\": [{\"name\": \"a\", \"sources\": [{\"hostDirectory\": {\"path\": \"/x\", \"items\": [{\"key\": \"k\", \"path\": \"p\", \"owner\": 1}]}}]}]}"}) {
            assertThatThrownBy(() -> mapper.readValue(json, SystemInfoSpec.class))
                    .as(json)
                    .isInstanceOf(UnrecognizedPropertyException.class)
                    .hasMessageContaining("Unrecognized field");
        }
    }

    @Test
    void keepsNullsForTheValidatorToName() throws Exception {
        SystemInfoSpec spec = mapper.readValue(
                "{\"volumes\": [null, {\"name\": \"v\", \"sources\": [null, {\"actorMetadata\": {\"items\": [null]}}]}]}",
                SystemInfoSpec.class);
        assertThat(SystemInfoSpecValidator.validate(spec, "systemInfo")).extracting(SpecViolation::toString).containsExactly(
                "systemInfo.volumes[0]: is null",
                "systemInfo.volumes[1].sources[0]: is null",
                "systemInfo.volumes[1].sources[1].actorMetadata.items[0]: is null");
    }

    @Test
    void rejectsAModeThatIsNotOctal() {
        assertThatThrownBy(() -> mapper.readValue("{\"volumes\": [{\"name\": \"a\", \"defaultMode\": \"0948\"}]}", SystemInfoSpec.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessageContaining("'0948' is not an octal file mode")
                .hasMessageContaining("defaultMode");
    }
}
