package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * Where a sandbox may connect to: IPv4 CIDRs to allow and to deny (the most specific rule decides; some ranges are
 * denied unless allowed explicitly, see the README's Network section). Also the body of
 * {@code PUT /v1/sandboxes/{id}/network/egress}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressSpec(List<String> allow, List<String> deny) {
}
