package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The daemon persists {@link ShareProcessRecord} in sandbox.json: it must survive a JSON round trip as is. */
class ShareProcessRecordJsonTest {

    @Test
    void roundTripsThroughJackson() throws Exception {
        ShareSpec spec = ShareSpec.inRunDir("sb-7", ShareKind.SYSTEM_INFO, Path.of("/var/lib/ateom/sandboxes/sb-7/system-info"),
                Path.of("/run/ateom/sb-7"), ShareOptions.DEFAULT.withDieWithDaemon(false));
        ShareProcessRecord record = new ShareProcessRecord(spec, 4242, 123456);
        ObjectMapper json = new ObjectMapper();

        String text = json.writeValueAsString(record);
        ShareProcessRecord back = json.readValue(text, ShareProcessRecord.class);

        assertThat(back).isEqualTo(record);
        assertThat(json.readTree(text).get("spec").get("kind").asText()).isEqualTo("SYSTEM_INFO");
        assertThat(json.readTree(text).get("spec").get("socketPath").asText()).endsWith("/run/ateom/sb-7/sysinfo.sock");
        assertThat(json.readTree(text).get("pid").asLong()).isEqualTo(4242);
    }
}
