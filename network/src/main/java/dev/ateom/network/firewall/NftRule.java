package dev.ateom.network.firewall;

/** One rule of an nftables listing: its statement text (without the handle comment) and its handle. */
public record NftRule(String text, long handle) {
    /** A rule that drops or rejects whatever reaches it (counters aside): the end of a chain that drops by default. */
    public boolean dropsEverything() {
        String statement = text.startsWith("counter ") ? text.substring("counter ".length()) : text;
        return statement.equals("drop") || statement.equals("reject") || statement.startsWith("reject with ");
    }

    public boolean hasComment(String comment) {
        return text.contains("comment \"" + comment + "\"");
    }
}
