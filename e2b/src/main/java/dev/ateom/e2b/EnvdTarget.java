package dev.ateom.e2b;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an envd request goes: the sandbox and the guest port, from the {@code E2b-Sandbox-Id}/{@code E2b-Sandbox-Port}
 * headers (the SDK's {@code E2B_SANDBOX_URL} mode) or from a {@code Host} of the form {@code <port>-<id>.<domain>}
 * (a deployment behind wildcard DNS).
 */
record EnvdTarget(String sandboxId, long port) {
    private static final Pattern HOST = Pattern.compile("(\\d{1,5})-([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)\\..+");

    static Optional<EnvdTarget> of(String idHeader, String portHeader, String host) {
        if (idHeader != null) {
            long port = AgentInit.ENVD_PORT;
            if (portHeader != null) {
                try {
                    port = Long.parseLong(portHeader.strip());
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            return Optional.of(new EnvdTarget(idHeader.strip(), port));
        }
        if (host != null) {
            Matcher m = HOST.matcher(host.strip().toLowerCase(Locale.ROOT));
            if (m.matches()) return Optional.of(new EnvdTarget(m.group(2), Long.parseLong(m.group(1))));
        }
        return Optional.empty();
    }

    boolean validPort() { return port >= 1 && port <= 0xFFFF_FFFFL; }
}
