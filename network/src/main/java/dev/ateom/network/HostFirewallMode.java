package dev.ateom.network;

import java.util.Locale;

/**
 * What the daemon does about forward chains of other software that drop its sandboxes' traffic (Docker's
 * {@code FORWARD} policy drop, firewalld, ufw): {@code --network-host-firewall}.
 */
public enum HostFirewallMode {
    /** Insert the narrowest rules that let the daemon's own interfaces through, remove them at stop (the default). */
    ALLOW,
    /** Change nothing, warn at start with the rules an operator would add (for operators who manage their firewall). */
    LEAVE;

    /** {@code allow} or {@code leave}, naming the option on anything else. */
    public static HostFirewallMode parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new NetworkConfigException("network-host-firewall", "'" + text + "' must be allow or leave");
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
