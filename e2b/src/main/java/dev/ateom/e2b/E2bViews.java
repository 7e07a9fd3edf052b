package dev.ateom.e2b;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.template.Template;

/** The JSON E2B's API answers with, field names as the SDK reads them. */
final class E2bViews {
    /** The envd version the fixture guest's agent answers as ({@code ate-agent --version}); the SDK picks features by it. */
    static final String ENVD_VERSION = "0.5.7";
    static final String CLIENT_ID = "ateom";

    private E2bViews() {}

    /** The answer to create, resume and connect: what the SDK needs to reach the sandbox's envd. */
    static ObjectNode created(E2bService.Current current) {
        E2bSandbox s = current.sandbox();
        ObjectNode out = ApiJson.mapper().createObjectNode();
        out.put("sandboxID", s.sandboxID());
        out.put("templateID", s.templateID());
        out.put("alias", s.templateID());
        out.put("clientID", CLIENT_ID);
        out.put("envdVersion", ENVD_VERSION);
        if (s.envdAccessToken() != null) out.put("envdAccessToken", s.envdAccessToken());
        out.putNull("domain");
        return out;
    }

    /** {@code GET /sandboxes/{id}} and the items of the listings. */
    static ObjectNode detail(E2bService.Current current) {
        E2bSandbox s = current.sandbox();
        SandboxSpec spec = current.record().spec();
        ObjectNode out = created(current);
        out.remove("envdAccessToken");
        out.put("startedAt", s.startedAt().toString());
        out.put("endAt", s.endAt().toString());
        out.put("state", current.paused() ? "paused" : "running");
        out.put("cpuCount", spec.vcpus() == null ? 1 : spec.vcpus());
        out.put("memoryMB", spec.memoryMib() == null ? 0 : spec.memoryMib());
        out.put("diskSizeMB", 0);
        out.set("metadata", ApiJson.mapper().valueToTree(s.metadata()));
        if (s.allowInternetAccess() != null) out.put("allowInternetAccess", s.allowInternetAccess());
        if (s.allowOut() != null || s.denyOut() != null) {
            ObjectNode network = out.putObject("network");
            if (s.allowOut() != null) network.set("allowOut", ApiJson.mapper().valueToTree(s.allowOut()));
            if (s.denyOut() != null) network.set("denyOut", ApiJson.mapper().valueToTree(s.denyOut()));
        }
        ObjectNode lifecycle = out.putObject("lifecycle");
        lifecycle.put("onTimeout", s.autoPause() ? "pause" : "kill");
        lifecycle.put("autoResume", s.autoResume());
        out.putArray("volumeMounts");
        return out;
    }

    /** An item of {@code GET /templates}. */
    static ObjectNode template(Template t) {
        ObjectNode out = ApiJson.mapper().createObjectNode();
        out.put("templateID", t.name());
        out.put("buildID", t.snapshotId());
        ArrayNode aliases = out.putArray("aliases");
        aliases.add(t.name());
        out.putArray("names").add(t.name());
        out.put("public", false);
        out.put("createdAt", t.createdAt() == null ? null : t.createdAt().toString());
        out.put("updatedAt", t.createdAt() == null ? null : t.createdAt().toString());
        out.put("buildStatus", "ready");
        out.put("diskSizeMB", t.sizeBytes() >> 20);
        out.put("envdVersion", ENVD_VERSION);
        out.put("spawnCount", t.sandboxes());
        return out;
    }

    static ObjectNode error(int status, String message) {
        return ApiJson.mapper().createObjectNode().put("code", status).put("message", message);
    }
}
