package dev.ateom.chv;

import java.util.List;

/**
 * The call is not allowed in the VM's current state (CHV answers these with 500): not running, already
 * created, an invalid transition such as pausing a paused VM, or snapshotting a running one.
 */
public final class ChvInvalidStateException extends ChvApiException {
    private static final List<String> MARKERS = List.of("VM is not running", "VM is already created", "VM is not created",
            "InvalidStateTransition", "Trying to snapshot while VM is running", "VM config is missing");

    ChvInvalidStateException(String endpoint, int status, List<String> chain) {
        super(endpoint, status, chain);
    }

    static boolean matches(List<String> chain) {
        return chain.stream().anyMatch(entry -> MARKERS.stream().anyMatch(entry::contains));
    }
}
