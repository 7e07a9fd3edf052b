package dev.ateom.chv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Typed client of one Cloud Hypervisor's REST API ({@code --api-socket}). One connection per call; each
 * call is bounded by {@link ChvTimeouts} and aborted by interrupting the calling thread or by {@link #close()}.
 * Errors: {@link ChvApiException} and its typed subclasses when CHV answers an error (status + error chain),
 * {@link ChvTimeoutException}, {@link ChvTransportException}, and {@link ChvConfigRejectedException} for what
 * is refused before reaching CHV (see {@link #create}, {@link #boot}, {@link #restore}).
 */
public final class ChvClient implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChvClient.class.getName());
    private static final String PREFIX = "/api/v1/";
    static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final UnixHttpTransport transport;
    private final ChvTimeouts timeouts;

    public ChvClient(Path apiSocket) {
        this(apiSocket, ChvTimeouts.defaults());
    }

    public ChvClient(Path apiSocket, ChvTimeouts timeouts) {
        this(new UnixHttpTransport(apiSocket), timeouts);
    }

    private ChvClient(UnixHttpTransport transport, ChvTimeouts timeouts) {
        this.transport = transport;
        this.timeouts = timeouts;
    }

    /** The same client with other time limits (closing either aborts calls of both). */
    public ChvClient withTimeouts(ChvTimeouts other) {
        return new ChvClient(transport, other);
    }

    public Path apiSocket() {
        return transport.socket();
    }

    /** {@code GET vmm.ping}: the VMM is up and answering. */
    public VmmPingResponse ping() {
        return read(call("GET", "vmm.ping", null, List.of(), timeouts.request()), VmmPingResponse.class);
    }

    /** {@code PUT vm.create}. Refuses duplicate fs sockets or tags first (CHV accepts them and misbehaves at boot). */
    public void create(VmConfig config) {
        VmConfigPreflight.checkConfig(endpoint("vm.create"), orEmpty(config.fs()), config.vsock());
        call("PUT", "vm.create", body(config), List.of(), timeouts.request());
    }

    /**
     * {@code PUT vm.boot}. First reads the created config (vm.info) and refuses to boot if an fs socket does
     * not exist or has no listener, instead of letting CHV block for 60 s.
     */
    public void boot() {
        VmInfo info = info();
        if (info.config() != null) {
            VmConfigPreflight.checkConfig(endpoint("vm.boot"), orEmpty(info.config().fs()), info.config().vsock());
            VmConfigPreflight.checkListeners(endpoint("vm.boot"), orEmpty(info.config().fs()));
        }
        call("PUT", "vm.boot", null, List.of(), timeouts.boot());
    }

    public void pause() {
        call("PUT", "vm.pause", null, List.of(), timeouts.request());
    }

    public void resume() {
        call("PUT", "vm.resume", null, List.of(), timeouts.request());
    }

    /** {@code PUT vm.snapshot} of a paused VM into an existing, empty directory. */
    public void snapshot(VmSnapshotConfig config) {
        call("PUT", "vm.snapshot", body(config), List.of(), timeouts.snapshot());
    }

    public void snapshot(Path directory) {
        snapshot(VmSnapshotConfig.toDirectory(directory));
    }

    /** {@code PUT vm.restore} without fds; see {@link #restore(RestoreConfig, List)}. */
    public void restore(RestoreConfig config) {
        restore(config, List.of());
    }

    /**
     * {@code PUT vm.restore}, with {@code fds} sent in the same {@code sendmsg} as the request (SCM_RIGHTS), as
     * {@link RestoreConfig#netFds()} describes them (CHV v54 gives them to the entries in order, {@code num_fds} each;
     * it answers a bare 400 when the count differs). First reads the snapshot's {@code config.json} and refuses to
     * restore when an fs socket it names does not exist, has no listener, or is used twice, or when a net device
     * backed by descriptors has no {@code net_fds} entry with as many (CHV: {@code RestoreMissingRequiredNetId},
     * {@code RestoreNetFdCountMismatch}).
     */
    public void restore(RestoreConfig config, List<Integer> fds) {
        String endpoint = endpoint("vm.restore");
        int described = orEmpty(config.netFds()).stream().mapToInt(RestoredNetConfig::numFds).sum();
        if (described != fds.size()) {
            throw new ChvConfigRejectedException(endpoint, "net_fds describe " + described + " fd(s) but " + fds.size() + " are passed");
        }
        VmConfig snapshotConfig = snapshotConfig(endpoint, config.sourceDirectory());
        if (snapshotConfig != null) {
            VmConfigPreflight.checkConfig(endpoint, orEmpty(snapshotConfig.fs()), snapshotConfig.vsock());
            VmConfigPreflight.checkListeners(endpoint, orEmpty(snapshotConfig.fs()));
            VmConfigPreflight.checkRestoredNets(endpoint, orEmpty(snapshotConfig.net()), orEmpty(config.netFds()));
        }
        call("PUT", "vm.restore", body(config), fds, timeouts.restore());
    }

    /** The snapshot's config.json, or null when it is missing (CHV then reports the error itself). */
    private static VmConfig snapshotConfig(String endpoint, Path directory) {
        try {
            return JSON.readValue(Files.readAllBytes(directory.resolve("config.json")), VmConfig.class);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new ChvConfigRejectedException(endpoint, "cannot read " + directory.resolve("config.json") + ": " + e.getMessage());
        }
    }

    /** {@code GET vm.info}; {@link ChvNotFoundException} when no VM is created. */
    public VmInfo info() {
        return read(call("GET", "vm.info", null, List.of(), timeouts.request()), VmInfo.class);
    }

    /** {@code PUT vm.shutdown}: stops the guest, keeps the config (state Created); virtiofsd exits on its own. */
    public void shutdown() {
        call("PUT", "vm.shutdown", null, List.of(), timeouts.request());
    }

    /** {@code PUT vm.delete}: forgets the VM (CHV answers 204 even when there is none). */
    public void delete() {
        call("PUT", "vm.delete", null, List.of(), timeouts.request());
    }

    /** {@code PUT vmm.shutdown}: the CHV process exits (0) after answering. */
    public void shutdownVmm() {
        call("PUT", "vmm.shutdown", null, List.of(), timeouts.request());
    }

    /**
     * {@code PUT vm.add-net}, with {@code fds} (TAP descriptors) sent in the same {@code sendmsg} (SCM_RIGHTS): CHV
     * v54 gives every descriptor of the request to this device (vmm/src/api/http/http_endpoint.rs, VmAddNet's
     * PutHandler, {@code attach_fds_to_cfg}) and never takes descriptors with {@code vm.create}, so a VM whose NIC is a
     * descriptor gets it here, between create and boot. Empty when cold-added to a created VM (204); the new device's
     * PCI info when hot-plugged into a running one (200). Refuses a queue count that does not fit the descriptors
     * (CHV wants two queues per descriptor) before reaching CHV.
     */
    public Optional<PciDeviceInfo> addNet(NetConfig net, List<Integer> fds) {
        int queues = net.numQueues() == null ? 2 : net.numQueues();
        if (!fds.isEmpty() && queues != 2 * fds.size()) {
            throw new ChvConfigRejectedException(endpoint("vm.add-net"), "num_queues " + queues + " with " + fds.size()
                    + " descriptor(s): CHV wants two queues per descriptor");
        }
        if (net.fds() != null) {
            throw new ChvConfigRejectedException(endpoint("vm.add-net"), "fds in the body mean nothing to CHV: pass the descriptors themselves");
        }
        HttpResponse response = call("PUT", "vm.add-net", body(net), fds, timeouts.request());
        return response.body().length == 0 ? Optional.empty() : Optional.of(read(response, PciDeviceInfo.class));
    }

    private HttpResponse call(String method, String name, byte[] body, List<Integer> fds, Duration timeout) {
        String endpoint = method + " " + PREFIX + name;
        long started = System.nanoTime();
        HttpResponse response = transport.exchange(method, PREFIX + name, body, fds, timeout);
        LOG.log(System.Logger.Level.DEBUG, "{0} on {1}: {2} in {3} ms", endpoint, transport.socket(), response.status(),
                (System.nanoTime() - started) / 1_000_000);
        if (response.status() >= 200 && response.status() < 300) {
            return response;
        }
        throw ChvApiException.of(endpoint, response.status(), errorChain(response));
    }

    /** CHV's error body is a JSON array of strings; anything else is kept whole as a one-entry chain. */
    static List<String> errorChain(HttpResponse response) {
        if (response.body().length == 0) {
            return List.of();
        }
        try {
            return JSON.readValue(response.body(), new TypeReference<List<String>>() { });
        } catch (IOException e) {
            return List.of(response.bodyText());
        }
    }

    private <T> T read(HttpResponse response, Class<T> type) {
        try {
            return JSON.readValue(response.body(), type);
        } catch (IOException e) {
            throw new ChvTransportException(type.getSimpleName() + " from " + transport.socket(),
                    "unparsable answer: " + e.getMessage() + " in '" + response.bodyText() + "'", e);
        }
    }

    /** The JSON CHV gets for a request body (snake_case, nulls omitted). */
    static byte[] body(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialise " + value.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static String endpoint(String name) {
        return "PUT " + PREFIX + name;
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** Aborts calls in flight and refuses new ones. Does not stop CHV. */
    @Override
    public void close() {
        transport.close();
    }
}
