package dev.ateom.microvm.sandbox;

import java.util.List;

/** Cloud Hypervisor or virtiofsd is missing, so no VM can be started; the detail says how to point the daemon at one. */
public final class HostToolsUnavailableException extends SandboxException {
    public HostToolsUnavailableException(List<String> problems) {
        super(String.join(" ", problems), null, null, null);
    }
}
