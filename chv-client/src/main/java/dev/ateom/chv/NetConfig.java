package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * CHV {@code net[]} entry: a TAP by name, TAP descriptors passed with the request, or vhost-user.
 *
 * <p>{@code fds} is what CHV shows for a device backed by descriptors: one {@code -1} per descriptor
 * (vmm/src/vm_config.rs, {@code serialize_netconfig_fds}: descriptor numbers mean nothing outside the process).
 * It is never sent: CHV drops descriptor numbers found in a request body and takes the descriptors that arrive with
 * the request (SCM_RIGHTS) instead, see {@link ChvClient#addNet}.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record NetConfig(String tap, String ip, String mask, String mac, String hostMac, Integer numQueues, Integer queueSize,
                        Boolean vhostUser, String vhostSocket, String vhostMode, String id, List<Integer> fds) {

    /**
     * A device on one TAP descriptor (one queue pair: CHV wants two queues per descriptor) with the guest MAC
     * {@code mac}; {@code id} names it for {@code net_fds} at restore (CHV assigns {@code _net<n>} when null).
     */
    public static NetConfig onTapDescriptor(String id, String mac) {
        return new NetConfig(null, null, null, mac, null, 2, null, null, null, null, id, null);
    }

    /** Whether CHV holds this device's TAP as descriptors (then a restore must pass new ones in {@code net_fds}). */
    public boolean descriptorBacked() {
        return fds != null;
    }
}
