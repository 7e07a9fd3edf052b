package dev.ateom.microvm.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the host's facts mean for sandboxes, in the operator's words: the warnings logged at start (one line each)
 * and shown by {@code GET /v1/host}, and the cause named in an operation's problem when a failure is one of them.
 */
public final class HostLimits {
    /** How CHV's error chain shows {@code KVM_GET_NESTED_STATE} refused (reference/ateom-on-real-chv.md). */
    static final String NESTED_STATE_REFUSED = "GetNestedState(Invalid argument";

    private HostLimits() {}

    public static List<String> warnings(HostFacts facts, Optional<ChvVersion> chv) {
        List<String> warnings = new ArrayList<>();
        if (facts.kvm().isPvm()) {
            warnings.add("host: /dev/kvm is served by kvm_pvm: with cloud-hypervisor " + chv.map(v -> "v" + v).orElse("(version unknown)")
                    + " suspend, checkpoint and fork will fail, because its vCPU save asks for nested state (KVM_GET_NESTED_STATE)"
                    + " without checking KVM_CAP_NESTED_STATE and kvm_pvm answers EINVAL (measured with v53, v54 not known to differ);"
                    + " guests also need a kernel built with CONFIG_PVM_GUEST");
        }
        return warnings;
    }

    /**
     * The host limit behind a failed operation, named so the answer says why and not only what CHV said; empty when
     * the failure is not one of them.
     */
    public static Optional<String> causeOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains(NESTED_STATE_REFUSED)) {
                return Optional.of("the host's KVM refused to give the vCPUs' nested state (KVM_GET_NESTED_STATE: EINVAL), as kvm_pvm"
                        + " does: this Cloud Hypervisor cannot snapshot a VM on this host, so suspend, checkpoint and fork fail here;"
                        + " see GET /v1/host");
            }
            if (t.getCause() == t) break;
        }
        return Optional.empty();
    }
}
