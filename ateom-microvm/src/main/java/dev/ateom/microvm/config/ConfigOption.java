package dev.ateom.microvm.config;

import java.util.Locale;

/**
 * Every daemon setting, with its flag, environment variable, YAML key and default.
 * Precedence: command-line flag, then environment, then the YAML file, then the default.
 * The README's configuration table and {@code ateom daemon --help} are generated from this list.
 */
public enum ConfigOption {
    LISTEN_HOST("listen-host", "127.0.0.1", "Address the REST API binds to. Keep it on loopback unless a proxy authenticates in front."),
    PORT("port", "8420", "TCP port of the REST API (0 picks a free one; see --port-file)."),
    PORT_FILE("port-file", "", "If set, the daemon writes the port it listens on to this file once it accepts requests."),
    STATE_DIR("state-dir", "/var/lib/ateom", "Sandbox records, durable dirs, system-info volumes and snapshots."),
    RUN_DIR("run-dir", "/run/ateom", "Sockets, console logs and pid files. Keep it short: Unix socket paths are limited to 107 bytes."),
    IMAGE_ROOTS("image-roots", "/var/lib/ateom-images",
            "Comma-separated directories that kernel, initramfs and rootfs must lie in (after resolving symlinks). Empty refuses every create."),
    HOST_DIRECTORY_ROOTS("host-directory-roots", "/var/lib/kubelet/pods",
            "Comma-separated directories that hostDirectory volume sources must lie in (after resolving symlinks). Empty refuses them."),
    TOKEN_FILE("token-file", "", "Bearer token file (0600), created with a random token on first start. Default <state-dir>/api-token."),
    CLOUD_HYPERVISOR("cloud-hypervisor", "cloud-hypervisor", "Path of the cloud-hypervisor binary (looked up on PATH when not absolute)."),
    VIRTIOFSD("virtiofsd", "/usr/libexec/virtiofsd", "Path of the virtiofsd binary (>= 1.13, with --migration-mode)."),
    VHOST_DEVICE_VSOCK("vhost-device-vsock", "vhost-device-vsock", "Path of vhost-device-vsock (only used by the QEMU-backed CHV stand-in in tests)."),
    SYNC_RECONCILE_SECONDS("sync-reconcile-seconds", "60", "Period of the checksum pass that repairs system-info volumes an inotify event missed."),
    MAX_REQUEST_BYTES("max-request-bytes", "1048576", "Largest request body the API accepts (413 above)."),
    CHILDREN_DIE_WITH_DAEMON("children-die-with-daemon", "true",
            "true: CHV and virtiofsd get SIGKILL when the daemon dies. false: they keep running and a restarted daemon adopts them."),
    MAX_PARALLEL_RESTORES("max-parallel-restores", "4", "Most clone restores a fork runs at once (each reads a memory image and starts CHV and virtiofsd)."),
    IDLE_MINIMUM_SECONDS("idle-minimum-seconds", "60", "Shortest idle timeout (idle.afterSeconds) a sandbox spec may ask for."),
    SNAPSHOT_STORE("snapshot-store", "",
            "s3://bucket/prefix of an S3-compatible store that many hosts share for snapshots (push, pull, adopt). Unset: snapshots stay on this host."),
    SNAPSHOT_STORE_ENDPOINT("snapshot-store-endpoint", "", "http(s)://host[:port] of a store other than AWS S3 (MinIO, Ceph RGW, R2, ...). Unset: AWS."),
    SNAPSHOT_STORE_REGION("snapshot-store-region", "", "Region of the store. Unset: the AWS SDK's chain (AWS_REGION, profile), else us-east-1 with an endpoint."),
    SNAPSHOT_STORE_PATH_STYLE("snapshot-store-path-style", "false", "true: https://endpoint/bucket/key URLs (MinIO, s3proxy, most non-AWS stores)."),
    SNAPSHOT_STORE_LEASES("snapshot-store-leases", "on",
            "on: adopting a sandbox takes a lease in the store, refused where the store does not honour conditional writes. off: no leases (the operator keeps hosts apart)."),
    SNAPSHOT_STORE_CACHE_MIB("snapshot-store-cache-mib", "4096", "Size bound of the local chunk cache (<state-dir>/chunks); least recently used chunks go first."),
    PUSH_ON_SUSPEND("push-on-suspend", "false", "true: every suspend pushes its snapshot to the store in the background after the local commit."),
    HOST_ID("host-id", "", "This host's name in store leases. Default: the machine's host name."),
    NETWORK("network", "false", "true: sandboxes whose spec has a network get a network slot each (needs root and the nftables "
            + "package). false: such sandboxes are refused (503)."),
    NETWORK_POOL("network-pool", "100.72.0.0/16", "IPv4 network the slots' addresses come from, one /30 per running sandbox; "
            + "must not overlap an address or route of the host."),
    NETWORK_POOL_READY("network-pool-ready", "4", "Network slots kept built and waiting, so create, resume and clone do not wait for the kernel."),
    NETWORK_MAX_PORTS("network-max-ports", "16", "Most published ports one sandbox may ask for."),
    NETWORK_REUSE_DELAY("network-reuse-delay", "5", "Seconds a released slot's addresses rest before another sandbox gets them."),
    NETWORK_PREFIX("network-prefix", "ateom", "Name prefix of the daemon's namespaces (<prefix>-s<n>), host veths (<prefix>-h<n>) "
            + "and nftables table; everything with it that no sandbox owns is removed at start."),
    NETWORK_ROUTED_INTERFACES("network-routed-interfaces", "", "Comma-separated host interfaces whose peers route the pool back: "
            + "sandbox traffic leaving through them keeps its slot address instead of being masqueraded."),
    NETWORK_HOST_NAMESPACE("network-host-namespace", "", "Named network namespace that plays the host for the slots (tests); "
            + "empty: the daemon's own."),
    NETWORK_HOST_FIREWALL("network-host-firewall", "allow", "allow: where another firewall's forward chain drops by default "
            + "(Docker, firewalld, ufw), insert the narrowest rules letting the daemon's <prefix>-h* interfaces through (comment "
            + "ateom:<prefix>:sandbox-forward), removed at stop. leave: change nothing, warn with those rules."),
    VMM_POOL("vmm-pool", "2", "Idle cloud-hypervisor processes kept started for create, clone and resume to claim (0: none; "
            + "always 0 when children do not die with the daemon)."),
    JAIL("jail", "on", "on: every cloud-hypervisor runs in a jail of its own (uid, mount, pid and network namespaces, cgroup, "
            + "no capabilities, Landlock; README \"Isolation\"). off: as root in the host's namespaces, for debugging only (a loud warning)."),
    JAIL_UID_RANGE("jail-uid-range", "1900000000-1900065535", "A-B: the uids and gids jailed VMMs run as, one per live VMM; refused "
            + "when it overlaps an /etc/passwd or /etc/group entry."),
    JAIL_MEMORY_OVERHEAD_MIB("jail-memory-overhead-mib", "256", "MiB a VMM's cgroup allows above its guest's memory (CHV's own "
            + "memory, its threads' stacks), and the memory of the cgroup of its virtiofsd. The JVM-based CHV stand-in adds 768 MiB "
            + "of its own to the VMM's."),
    JAIL_PIDS_MAX("jail-pids-max", "512", "Tasks (processes and threads) a VMM's cgroup allows (CHV, its vcpu and device threads), and "
            + "the cgroup of its virtiofsd."),
    JAIL_CPU_QUOTA("jail-cpu-quota", "vcpus", "CPUs worth of time a VMM's cgroup gets, and the cgroup of its virtiofsd: vcpus (the "
            + "sandbox's vcpu count), a number (e.g. 1.5), or 0 for no CPU limit."),
    VIRTIOFSD_AHEAD("virtiofsd-ahead", "0", "Suspended sandboxes whose next resume finds its three virtiofsd already started "
            + "(started when the suspend's teardown begins; the oldest make room once 2 s old; 0: none; always 0 when children do not die "
            + "with the daemon)."),
    VIRTIOFSD_AHEAD_RUNNING_MS("virtiofsd-ahead-running-ms", "1000", "With --virtiofsd-ahead: how long a sandbox runs before its "
            + "next resume's three virtiofsd are started, where the budget has room (they never push out a suspended sandbox's), "
            + "so that a resume right after its suspend finds them serving; 0: only the suspend's teardown starts them."),
    CLONE_AHEAD("clone-ahead", "0", "Recently cloned snapshots whose next clone is made ahead: its durable dir extracted and its "
            + "three virtiofsd serving, taken by the next clone of the snapshot (not for a fork's own checkpoint, which no "
            + "later clone takes; the least recently cloned makes room; each "
            + "keeps three idle virtiofsd and a copy of its durable dir; 0: none; always 0 when children do not die with the daemon)."),
    OPERATION_RETENTION_SECONDS("operation-retention-seconds", "900", "Longest a finished asynchronous operation (?async=true) "
            + "is kept for GET /v1/operations/{id}; one that was fetched finished goes 10 s after (at most half this)."),
    E2B_LISTEN("e2b-listen", "", "HOST:PORT (or PORT, on 127.0.0.1) of an E2B-compatible API and envd proxy, so the E2B SDK "
            + "drives this daemon (needs the e2b module's jar on the class path, as bin/ateom has it). Empty: off."),
    E2B_KEYS_FILE("e2b-keys-file", "", "File of API keys (one a line, # comments) the E2B listener accepts besides the daemon's token."),
    LOG_LEVEL("log-level", "INFO", "One of ERROR, WARNING, INFO, DEBUG, TRACE. Logs are JSON lines on stderr."),
    CONFIG("config", "/etc/ateom/ateom.yaml", "YAML file with any of these keys (flag names); missing file is fine unless named explicitly.");

    private final String key;
    private final String defaultValue;
    private final String description;

    ConfigOption(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The flag without dashes and the YAML key, e.g. {@code state-dir}. */
    public String key() { return key; }

    public String flag() { return "--" + key; }

    public String environmentVariable() { return "ATEOM_" + key.toUpperCase(Locale.ROOT).replace('-', '_'); }

    public String defaultValue() { return defaultValue; }

    public String description() { return description; }
}
