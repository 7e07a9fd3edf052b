package dev.ateom.microvm.host;

/**
 * The host's KVM: whether {@code /dev/kvm} is there, and which vendor module serves it. KVM takes one vendor module
 * at a time, so the one of {@code kvm_intel}, {@code kvm_amd} and {@code kvm_pvm} (Pagetable-based Virtual Machine,
 * for hosts that are themselves VMs without nested virtualisation) found in {@code /sys/module} is it.
 *
 * @param device whether {@code /dev/kvm} exists
 * @param module {@code kvm_intel}, {@code kvm_amd}, {@code kvm_pvm}, or {@code none}
 */
public record KvmFacts(boolean device, String module) {
    public static final String PVM = "kvm_pvm";

    /** {@code /dev/kvm} is served by {@code kvm_pvm}. */
    public boolean isPvm() { return device && PVM.equals(module); }
}
