package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoint and fork of a real guest ({@link RealGuest}: the CHV stand-in's {@code qemu} backend):
 * one source guest boots once; it keeps answering its probe across a checkpoint, the checkpoint holds the durable dir
 * as it was at the pause (a later write is not in it), a clone of the checkpoint answers with its own identity through
 * the descriptor the guest has held open since boot, and a fork of 3 from the running source gives 3 guests with 3
 * identities while the source goes on running.
 */
class RealGuestCheckpointTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.startedBy(RealGuest::daemon);

    @Test
    void aCheckpointKeepsTheGuestRunningAndItsClonesAndForksAnswerWithTheirOwnIdentity() throws Exception {
        ProbeClient source = RealGuest.probe(daemon.createOk(RealGuest.spec("cp-src")).body().path("sandbox"));
        assertThat(source.whoami().text()).isEqualTo("cp-src");
        source.write("/data/data/note.txt", "at the checkpoint");

        var checkpoint = daemon.post("/v1/sandboxes/cp-src/checkpoint", "{}");
        assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(200);
        assertThat(checkpoint.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        String snapshot = checkpoint.body().path("snapshotId").asText();
        assertThat(source.ping()).as("the guest answers right after the checkpoint").isEqualTo("pong");
        assertThat(source.whoami().text()).isEqualTo("cp-src");
        // written after the pause window: in the running guest's durable dir, not in the checkpoint
        source.write("/data/data/note.txt", "after the checkpoint");
        source.write("/data/data/later.txt", "only after");
        assertThat(source.cat("/data/data/note.txt").text()).isEqualTo("after the checkpoint");

        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "cp-clone");
        clone.putObject("identity").put("name", "cp-clone").put("namespace", "tests");
        ProbeClient cloneProbe = RealGuest.probe(daemon.createOk(clone).body().path("sandbox"));
        assertThat(cloneProbe.whoami().text()).as("the clone's own name through the descriptor held since boot").isEqualTo("cp-clone");
        assertThat(cloneProbe.cat("/data/data/note.txt").text()).as("the durable dir as it was at the pause").isEqualTo("at the checkpoint");
        assertThat(cloneProbe.ls("/data/data")).as("nothing written after the checkpoint").containsExactly("note.txt");
        assertThat(daemon.delete("/v1/sandboxes/cp-clone").status()).isEqualTo(204);

        var fork = daemon.post("/v1/sandboxes/cp-src/fork", "{\"count\": 3, \"namePrefix\": \"cp-f\"}");
        assertThat(fork.status()).as(fork.body().toString()).isEqualTo(200);
        assertThat(fork.body().path("succeeded").asInt()).as(fork.body().toString()).isEqualTo(3);
        List<String> identities = new ArrayList<>();
        for (JsonNode forked : fork.body().path("clones")) {
            assertThat(forked.path("state").asText()).isEqualTo("RUNNING");
            identities.add(probeCommand(forked.path("id").asText(), "whoami"));
        }
        assertThat(identities).as("through the probe route, one identity each").containsExactlyInAnyOrder("cp-f-1", "cp-f-2", "cp-f-3");
        assertThat(daemon.get("/v1/sandboxes/cp-src").body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(source.whoami().text()).as("the source goes on running").isEqualTo("cp-src");
        assertThat(source.cat("/data/data/later.txt").text()).isEqualTo("only after");

        for (String id : List.of("cp-f-1", "cp-f-2", "cp-f-3")) assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/cp-src?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /** One command through {@code POST /v1/sandboxes/{id}/probe}: its output, which must be an OK answer. */
    private static String probeCommand(String id, String command) throws Exception {
        var res = daemon.post("/v1/sandboxes/" + id + "/probe", ApiJson.mapper().createObjectNode().put("command", command));
        assertThat(res.status()).as(res.body().toString()).isEqualTo(200);
        assertThat(res.body().path("ok").asBoolean()).as(res.body().toString()).isTrue();
        return res.body().path("output").asText();
    }
}
