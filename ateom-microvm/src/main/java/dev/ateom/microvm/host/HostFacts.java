package dev.ateom.microvm.host;

/**
 * What the host offers sandboxes, as probed at start ({@link HostFactsProbe}): one record, so a new fact (a jail's
 * needs, say) is one component and one probe method more.
 *
 * @param kvm           {@code /dev/kvm} and the module serving it
 * @param cgroup        the cgroup version and controllers
 * @param landlockAbi   the Landlock ABI version the kernel offers; 0 when Landlock is not available
 * @param nftables      whether libnftables (the nftables package) can be loaded, which networking needs
 * @param dockerForward Docker's {@code FORWARD} chain policy ({@code drop}, {@code accept}) and backend, or null when
 *                      no Docker tables are here ({@code unknown} when they could not be read)
 */
public record HostFacts(KvmFacts kvm, CgroupFacts cgroup, int landlockAbi, boolean nftables, DockerForward dockerForward) {
    /** Docker's forward chain: who holds it ({@code iptables-nft}, {@code iptables-legacy}) and its policy. */
    public record DockerForward(String backend, String policy) {}
}
