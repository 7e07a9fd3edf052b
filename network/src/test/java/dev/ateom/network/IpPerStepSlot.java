package dev.ateom.network;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;

/**
 * The baseline of the slot benchmark: the same slot as {@link SlotBuilder} builds (namespace, veth with the peer born
 * inside, TAP with flags and MAC, addresses, route, sysctls, the slot's nftables table), one {@code ip}/{@code sysctl}/
 * {@code nft} process per step, as a shell script would.
 */
final class IpPerStepSlot {
    private IpPerStepSlot() {
    }

    static void build(String hostNamespace, SlotName name, SlotAddresses addresses, String rules) throws IOException {
        String ns = name.namespace();
        String veth = name.hostInterface();
        run("ip", "netns", "add", ns);
        run("ip", "-n", hostNamespace, "link", "add", veth, "type", "veth", "peer", "name", "veth0", "netns", ns);
        run("ip", "netns", "exec", hostNamespace, "sysctl", "-qw", "net.ipv6.conf." + veth + ".disable_ipv6=1");
        run("ip", "netns", "exec", hostNamespace, "sysctl", "-qw", "net.ipv4.conf." + veth + ".route_localnet=1");
        run("ip", "netns", "exec", hostNamespace, "sysctl", "-qw", "net.ipv4.conf." + veth + ".forwarding=1");
        run("ip", "-n", hostNamespace, "addr", "add", addresses.host() + "/30", "dev", veth);
        run("ip", "-n", hostNamespace, "link", "set", veth, "up");
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1");
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1");
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1");
        run("ip", "-n", ns, "tuntap", "add", "dev", "tap0", "mode", "tap", "vnet_hdr");
        run("ip", "-n", ns, "link", "set", "lo", "up");
        run("ip", "-n", ns, "addr", "add", addresses.slot() + "/30", "dev", "veth0");
        run("ip", "-n", ns, "link", "set", "veth0", "up");
        run("ip", "-n", ns, "link", "set", "tap0", "address", GuestNetwork.GATEWAY_MAC.toString());
        run("ip", "-n", ns, "addr", "add", GuestNetwork.GATEWAY_ADDRESS + "/30", "dev", "tap0");
        run("ip", "-n", ns, "link", "set", "tap0", "up");
        run("ip", "-n", ns, "route", "add", "default", "via", addresses.host().toString());
        runWithInput(rules, "ip", "netns", "exec", ns, "nft", "-f", "-");
    }

    static void destroy(String hostNamespace, SlotName name) throws IOException {
        run("ip", "-n", hostNamespace, "link", "del", name.hostInterface());
        run("ip", "netns", "del", name.namespace());
    }

    private static void run(String... command) throws IOException {
        runWithInput(null, command);
    }

    private static void runWithInput(String input, String... command) throws IOException {
        Process process = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true).start();
        if (input != null) {
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        }
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted", e);
        }
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + process.exitValue() + "): " + output);
        }
    }
}
