package dev.ateom.virtiofsd;

import java.util.Locale;

/**
 * The three shares of a sandbox and the virtiofsd policy each one gets.
 * All use {@code --migration-mode=find-paths} so a restored guest's inodes are re-bound by path.
 */
public enum ShareKind {
    /** The image's root directory: immutable while served, so the guest may cache everything. */
    ROOTFS("ateRootfs", "rootfs", true, CacheMode.ALWAYS, MigrationOnError.ABORT),
    /** Guest-writable data; never writeback, so a paused VM has no dirty data outside the host dir. */
    DURABLE("ateDurable", "durable", false, CacheMode.AUTO, MigrationOnError.ABORT),
    /**
     * Host-generated files that rotate while the guest runs: a lost inode becomes a guest error, not a failed restore.
     * No guest caching: with {@code auto} a descriptor held across a resume read its pre-suspend content for up to
     * a second (the attribute timeout counts guest time, which stood still while saved), and a cached dentry pins
     * an old inode; the files are small and rarely read, so going to the host every time costs nothing.
     */
    SYSTEM_INFO("ateSystemInfo", "sysinfo", true, CacheMode.NEVER, MigrationOnError.GUEST_ERROR);

    private final String tag;
    private final String shortName;
    private final boolean readOnly;
    private final CacheMode cache;
    private final MigrationOnError migrationOnError;

    ShareKind(String tag, String shortName, boolean readOnly, CacheMode cache, MigrationOnError migrationOnError) {
        this.tag = tag;
        this.shortName = shortName;
        this.readOnly = readOnly;
        this.cache = cache;
        this.migrationOnError = migrationOnError;
    }

    /** The virtio-fs tag the guest mounts by. */
    public String tag() { return tag; }

    /** Short name for file names in the run dir ({@code rootfs.sock}, {@code sysinfo.log}). */
    public String shortName() { return shortName; }

    public boolean readOnly() { return readOnly; }

    public CacheMode cache() { return cache; }

    public MigrationOnError migrationOnError() { return migrationOnError; }

    public static ShareKind byTag(String tag) {
        for (ShareKind kind : values()) {
            if (kind.tag.equals(tag)) return kind;
        }
        throw new IllegalArgumentException("unknown share tag '" + tag + "' (known: ateRootfs, ateDurable, ateSystemInfo)");
    }

    public enum CacheMode {
        AUTO, ALWAYS, NEVER, METADATA;
        public String flagValue() { return name().toLowerCase(Locale.ROOT); }
    }

    public enum MigrationOnError {
        ABORT("abort"), GUEST_ERROR("guest-error");
        private final String flagValue;
        MigrationOnError(String flagValue) { this.flagValue = flagValue; }
        public String flagValue() { return flagValue; }
    }
}
