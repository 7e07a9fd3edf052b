package dev.ateom.network;

/**
 * What every guest sees, in every slot: the same address, gateway, and MACs. A restored or cloned guest keeps the
 * IP configuration and ARP cache it had when it was saved, so these never change: the guest needs no help to go on
 * talking after it wakes up in another slot, and a slot whose TAP had another MAC would leave it unable to reach
 * its gateway until its ARP entry expired (38.6 s measured with QEMU/TCG; 1.2 s with the same MAC).
 *
 * <p>The TAP device inside the slot holds the gateway address and has the gateway MAC (set explicitly on every
 * slot's TAP). The VMM gives the guest's virtio-net device {@link #GUEST_MAC}.
 */
public final class GuestNetwork {
    /** The guest's address, a /30 together with the gateway. */
    public static final Ipv4Address GUEST_ADDRESS = Ipv4Address.parse("169.254.0.21");
    public static final Ipv4Address GATEWAY_ADDRESS = Ipv4Address.parse("169.254.0.22");
    public static final int PREFIX_LENGTH = 30;
    /** Locally administered; the last four octets spell 169.254.0.21. */
    public static final MacAddress GUEST_MAC = MacAddress.parse("02:00:a9:fe:00:15");
    /** The slot TAP's MAC; the last four octets spell 169.254.0.22. */
    public static final MacAddress GATEWAY_MAC = MacAddress.parse("02:00:a9:fe:00:16");
    /** The guest's interface name (its first and only virtio-net device). */
    public static final String GUEST_INTERFACE = "eth0";

    private GuestNetwork() {
    }

    /**
     * The kernel's static {@code ip=} argument for the guest: {@code ip=<client>::<gateway>:<netmask>::<device>:off}.
     * Kernels with CONFIG_IP_PNP apply it themselves; the fixture guest's init applies it when the kernel does not.
     */
    public static String kernelIpArgument() {
        return "ip=" + GUEST_ADDRESS + "::" + GATEWAY_ADDRESS + ":255.255.255.252::" + GUEST_INTERFACE + ":off";
    }
}
