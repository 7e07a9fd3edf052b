package dev.ateom.store;

/** The settings a store error can be blamed on, named as the daemon's flags name them. */
public enum StoreOption {
    LOCATION("snapshot-store"),
    ENDPOINT("snapshot-store-endpoint"),
    REGION("snapshot-store-region"),
    PATH_STYLE("snapshot-store-path-style"),
    LEASES("snapshot-store-leases"),
    CREDENTIALS("credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws/credentials)");

    private final String flag;

    StoreOption(String flag) {
        this.flag = flag;
    }

    /** The flag name without dashes, e.g. {@code snapshot-store-endpoint}; for credentials, where they come from. */
    public String flag() {
        return flag;
    }
}
