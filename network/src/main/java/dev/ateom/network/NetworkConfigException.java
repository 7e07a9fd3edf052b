package dev.ateom.network;

/** A daemon network option is invalid or does not fit this host; {@link #option()} is the option's name (e.g. {@code network-pool}). */
public final class NetworkConfigException extends NetworkException {
    private final String option;
    private final String reason;

    public NetworkConfigException(String option, String reason) {
        super(option + ": " + reason, null);
        this.option = option;
        this.reason = reason;
    }

    public String option() {
        return option;
    }

    public String reason() {
        return reason;
    }
}
