package dev.ateom.e2b;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the E2B API keeps of a sandbox beside the daemon's own record: its template, metadata, env vars, access token
 * and lifetime. {@code endAt} is the absolute deadline (set from create, resume, connect, setTimeout and refresh), at
 * which the sandbox is killed, or paused when {@code autoPause}; it is written with the rest, so a daemon restart keeps
 * it. {@code allowOut}/{@code denyOut} are the egress the request asked for (null: the template's).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record E2bSandbox(
        String sandboxID,
        String templateID,
        Map<String, String> metadata,
        Map<String, String> envVars,
        boolean secure,
        String envdAccessToken,
        boolean autoPause,
        boolean autoResume,
        Boolean allowInternetAccess,
        List<String> allowOut,
        List<String> denyOut,
        Instant startedAt,
        Instant endAt) {

    E2bSandbox {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        envVars = envVars == null ? Map.of() : Map.copyOf(envVars);
    }

    E2bSandbox withEndAt(Instant newEnd) {
        return new E2bSandbox(sandboxID, templateID, metadata, envVars, secure, envdAccessToken, autoPause, autoResume,
                allowInternetAccess, allowOut, denyOut, startedAt, newEnd);
    }

    /** Resumed: E2B's {@code startedAt} is the last start, and the deadline counts from it. */
    E2bSandbox restarted(Instant now, Instant newEnd) {
        return new E2bSandbox(sandboxID, templateID, metadata, envVars, secure, envdAccessToken, autoPause, autoResume,
                allowInternetAccess, allowOut, denyOut, now, newEnd);
    }
}
