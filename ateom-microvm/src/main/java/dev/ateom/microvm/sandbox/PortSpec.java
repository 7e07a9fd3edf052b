package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A published port: guest TCP port {@code guest} reachable at {@code 127.0.0.1:host} on the daemon's host. In a
 * request {@code host} is optional (a preference, kept when free); in a sandbox's runtime it is the port in use.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PortSpec(Integer guest, Integer host) {
}
