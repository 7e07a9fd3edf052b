package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The rules as the kernel holds them (listed back with nft), verbatim: what the README shows. */
class NftRulesetTest {
    private static TestNetwork network;
    private static NetworkSlots slots;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
        slots = network.openSlots(network.config(0));
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void oneSlotsRulesetVerbatim() throws IOException {
        Slot slot = slots.acquire("sbx-rules", new NetworkPolicy(
                new EgressPolicy(List.of(Ipv4Cidr.parse("10.1.0.0/16")), List.of(Ipv4Cidr.parse("198.51.100.0/24"))),
                List.of(PortRequest.guest(8080))));
        try (NetNamespace inside = NetNamespace.named(slot.name())) {
            String listed = inside.call(() -> Nftables.run("list ruleset"));
            System.out.println("--- ruleset of slot " + slot.name() + "\n" + listed);
            assertThat(listed).isEqualTo(SLOT.replace("@SLOT@", slot.slotAddress().toString()));
        } finally {
            slots.release(slot);
        }
    }

    @Test
    void theHostTableVerbatim() throws IOException {
        Slot slot = slots.acquire("sbx-rules", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        try {
            String listed = network.inHost(() -> Nftables.run("list table ip " + network.prefix()));
            System.out.println("--- host table\n" + listed);
            assertThat(listed).isEqualTo(HOST.replace("@P@", network.prefix()).replace("@SLOT@", slot.slotAddress().toString())
                    .replace("@PORT@", String.valueOf(slot.publishedPorts().getFirst().hostPort())));
        } finally {
            slots.release(slot);
        }
    }

    private static final String SLOT = """
            table ip ateom {
            	set egress_deny {
            		type ipv4_addr
            		flags interval
            		elements = { 0.0.0.0/8, 10.0.0.0/16,
            			     10.2.0.0/15, 10.4.0.0/14,
            			     10.8.0.0/13, 10.16.0.0/12,
            			     10.32.0.0/11, 10.64.0.0/10,
            			     10.128.0.0/9, 100.64.0.0/10,
            			     127.0.0.0/8, 169.254.0.0/16,
            			     172.16.0.0/12, 192.168.0.0/16,
            			     198.51.100.0/24, 224.0.0.0/3 }
            	}

            	set published_ports {
            		type inet_service
            		elements = { 8080 }
            	}

            	chain prerouting {
            		type nat hook prerouting priority dstnat; policy accept;
            		iifname "veth0" tcp dport @published_ports dnat to 169.254.0.21
            	}

            	chain postrouting {
            		type nat hook postrouting priority srcnat; policy accept;
            		oifname "veth0" ip saddr 169.254.0.21 snat to @SLOT@
            	}

            	chain forward {
            		type filter hook forward priority filter; policy drop;
            		iifname "tap0" oifname "veth0" ct direction original ip daddr @egress_deny reject with icmp admin-prohibited
            		ct state established,related accept
            		iifname "tap0" oifname "veth0" ip saddr 169.254.0.21 ct state new accept
            		iifname "veth0" oifname "tap0" ct status dnat ct state new accept
            	}

            	chain input {
            		type filter hook input priority filter; policy drop;
            		iif "lo" accept
            		ct state established,related accept
            		iifname "tap0" icmp type echo-request accept
            		iifname "tap0" reject with icmp admin-prohibited
            	}
            }
            """;

    private static final String HOST = """
            table ip @P@ {
            	map published_ports {
            		type inet_service : ipv4_addr . inet_service
            		elements = { @PORT@ : @SLOT@ . 8080 }
            	}

            	set routed_interfaces {
            		type ifname
            	}

            	chain output {
            		type nat hook output priority -100; policy accept;
            		ip daddr 127.0.0.1 dnat ip to tcp dport map @published_ports
            	}

            	chain postrouting {
            		type nat hook postrouting priority srcnat; policy accept;
            		oifname "@P@-h*" ip saddr 127.0.0.0/8 masquerade
            		ip saddr 100.72.0.0/24 oifname != "@P@-h*" oifname != @routed_interfaces masquerade
            	}

            	chain forward {
            		type filter hook forward priority filter; policy accept;
            		iifname "@P@-h*" oifname "@P@-h*" drop
            		oifname "@P@-h*" ct state established,related accept
            		oifname "@P@-h*" drop
            		iifname "@P@-h*" tcp flags syn / syn,rst tcp option maxseg size set rt mtu
            	}

            	chain input {
            		type filter hook input priority filter; policy accept;
            		iifname "@P@-h*" ct state established,related accept
            		iifname "@P@-h*" drop
            	}
            }
            """;
}
