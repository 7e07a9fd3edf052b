package dev.ateom.microvm.template;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.microvm.sandbox.SandboxSpec;

/**
 * The body of {@code POST /v1/templates}: the template's name (a snapshot name), the spec to boot, and the guest HTTP
 * route that says the guest is ready ({@link HealthCheck}; absent: the guest agent's {@code GET /health} on vsock 49983).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TemplateRequest(String name, SandboxSpec spec, HealthCheck health) {

    /** What the template build waits for before it snapshots the guest: a 2xx answer to {@code GET path} on vsock {@code port}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HealthCheck(Long port, String path, Integer timeoutSeconds) {
        public static final long AGENT_PORT = 49983;
        public static final HealthCheck AGENT = new HealthCheck(AGENT_PORT, "/health", 120);

        public long portOrDefault() { return port == null ? AGENT_PORT : port; }

        public String pathOrDefault() { return path == null ? "/health" : path; }

        public int timeoutOrDefault() { return timeoutSeconds == null ? 120 : timeoutSeconds; }
    }

    public HealthCheck healthOrDefault() { return health == null ? HealthCheck.AGENT : health; }
}
