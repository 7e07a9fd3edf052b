package dev.ateom.chv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.fixtures.wait.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The typed client and its preflight against the CHV under test (stand-in unless ATEOM_CLOUD_HYPERVISOR). */
class ChvClientTest {
    @TempDir
    Path dir;
    private final List<ChvProcess> started = new ArrayList<>();

    private ChvClient vmm(String name) throws IOException {
        return vmm(name, ChvUnderTest.defaultRelease());
    }

    private ChvClient vmm(String name, ChvRelease release) throws IOException {
        ChvProcess process = ChvUnderTest.start(dir, name, release);
        started.add(process);
        return process.client();
    }

    @AfterEach
    void killAll() {
        started.forEach(ChvProcess::kill);
    }

    @Test
    void fullCycleThroughTheTypedClient() throws Exception {
        ChvClient chv = vmm("a");
        assertThat(ChvUnderTest.defaultRelease().behaviourOf(chv).version()).as("vmm.ping answers a release with a behaviour table")
                .isIn(ChvBehaviour.V53.version(), ChvBehaviour.V54.version());
        Path snap = Files.createDirectory(dir.resolve("snap"));
        try (SandboxShares shares = SandboxShares.start(dir, "g1")) {
            chv.create(shares.config("g1"));
            assertThat(chv.info().state()).isEqualTo(VmState.Created);
            chv.boot();
            VmInfo running = chv.info();
            assertThat(running.state()).isEqualTo(VmState.Running);
            assertThat(running.config().fs()).extracting(FsConfig::id).containsExactly("_fs0", "_fs1", "_fs2");
            assertThat(running.config().fs()).extracting(FsConfig::tag).containsExactlyElementsOf(SandboxShares.TAGS);
            assertThat(running.config().memory().shared()).isTrue();
            assertThat(running.deviceTree().has("_vsock3")).isTrue();
            chv.pause();
            chv.snapshot(snap);
            chv.shutdown();
            chv.delete();
            assertThatThrownBy(chv::info).isInstanceOf(ChvNotFoundException.class);
        }
        ChvClient second = vmm("b");
        try (SandboxShares fresh = SandboxShares.start(dir, "g2")) {
            Path copy = Files.createDirectory(dir.resolve("copy"));
            Files.copy(snap.resolve("state.json"), copy.resolve("state.json"));
            Files.copy(snap.resolve("memory-ranges"), copy.resolve("memory-ranges"));
            VmConfig old = ChvClient.JSON.readValue(snap.resolve("config.json").toFile(), VmConfig.class);
            String rewritten = Files.readString(snap.resolve("config.json"));
            for (int i = 0; i < 3; i++) {
                rewritten = rewritten.replace(old.fs().get(i).socket(), fresh.shares.get(i).socket.toString());
            }
            Files.writeString(copy.resolve("config.json"), rewritten.replace("g1-", "g2-"));
            second.restore(RestoreConfig.fromDirectory(copy, MemoryRestoreMode.OnDemand));
            assertThat(second.info().state()).isEqualTo(VmState.Paused);
            second.resume();
            assertThat(second.info().state()).isEqualTo(VmState.Running);
            assertThat(second.info().config().vsock().socket()).isEqualTo(dir.resolve("g2-vsock.sock").toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ateom.chv.ChvRelease#underTest")
    void errorsAreTypedAndKeepTheWholeChain(ChvRelease release) throws Exception {
        ChvClient chv = vmm("a", release);
        ChvBehaviour behaviour = release.behaviourOf(chv);
        assertThatThrownBy(chv::info).isInstanceOfSatisfying(ChvNotFoundException.class, e -> {
            assertThat(e.status()).isEqualTo(404);
            assertThat(e.chain()).containsExactly("Error from API", "The VM info is not available", "VM is not created");
            assertThat(e.endpoint()).isEqualTo("GET /api/v1/vm.info");
        });
        assertThatThrownBy(chv::pause).isInstanceOfSatisfying(ChvInvalidStateException.class, e -> {
            assertThat(e.status()).isEqualTo(500);
            assertThat(e.rootCause()).isEqualTo("VM is not running");
        });
        try (SandboxShares shares = SandboxShares.start(dir, "g1")) {
            VmConfig good = shares.config("g1");
            VmConfig noPayload = new VmConfig(good.cpus(), good.memory(), null, good.fs(), good.vsock(), good.serial(), good.console(),
                    good.rng(), null, null);
            chv.create(noPayload);
            // v54 answers 400 (a bad request), v53 500 (a plain API error): the same root cause either way
            assertThatThrownBy(chv::boot).isInstanceOf(behaviour.bootWithoutPayloadStatus() == 400 ? ChvBadRequestException.class : ChvApiException.class)
                    .isInstanceOfSatisfying(ChvApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(behaviour.bootWithoutPayloadStatus());
                        assertThat(e.rootCause()).isEqualTo("No bootitem provided: neither firmware nor kernel");
                    });
            chv.delete();
            List<FsConfig> sameIds = good.fs().stream().map(f -> new FsConfig(f.tag(), f.socket(), 1, 1024, "fsdup")).toList();
            chv.create(new VmConfig(good.cpus(), good.memory(), good.payload(), sameIds, good.vsock(), good.serial(), good.console(),
                    good.rng(), null, null));
            assertThatThrownBy(chv::boot).isInstanceOfSatisfying(ChvConflictException.class,
                    e -> assertThat(e.chain()).endsWith("Identifier fsdup is not unique"));
            chv.delete();
            chv.create(good);
            chv.boot();
            assertThatThrownBy(chv::resume).isInstanceOfSatisfying(ChvInvalidStateException.class,
                    e -> assertThat(e.rootCause()).contains("InvalidStateTransition(Running, Running)"));
            assertThatThrownBy(() -> chv.snapshot(dir)).isInstanceOf(ChvInvalidStateException.class);
        }
    }

    @Test
    void preflightRefusesWhatChvMishandlesWithoutSendingIt() throws Exception {
        ChvClient chv = vmm("a");
        try (SandboxShares shares = SandboxShares.start(dir, "g1")) {
            VmConfig good = shares.config("g1");
            List<FsConfig> sameSocket = List.of(good.fs().get(0), FsConfig.of("other", good.fs().get(0).socket()), good.fs().get(2));
            assertThatThrownBy(() -> chv.create(withFs(good, sameSocket)))
                    .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("fs[1]").hasMessageContaining("used by another fs entry");
            List<FsConfig> sameTag = List.of(good.fs().get(0), FsConfig.of("ateRootfs", good.fs().get(1).socket()), good.fs().get(2));
            assertThatThrownBy(() -> chv.create(withFs(good, sameTag)))
                    .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("tag 'ateRootfs' is used twice");
            assertThatThrownBy(chv::info).as("nothing reached CHV").isInstanceOf(ChvNotFoundException.class);

            Path missing = dir.resolve("missing.sock");
            chv.create(withFs(good, List.of(good.fs().get(0), good.fs().get(1), FsConfig.of("ateSystemInfo", missing.toString()))));
            assertThatThrownBy(chv::boot).isInstanceOf(ChvConfigRejectedException.class)
                    .hasMessageContaining("fs[2] (tag ateSystemInfo).socket " + missing + " does not exist");
            chv.delete();

            Path stale = dir.resolve("stale.sock");
            try (VirtiofsdShare gone = VirtiofsdShare.start(dir, "gone")) {
                Files.move(gone.socket, stale);
            }
            chv.create(withFs(good, List.of(good.fs().get(0), good.fs().get(1), FsConfig.of("ateSystemInfo", stale.toString()))));
            assertThatThrownBy(chv::boot).isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("has no listener");
            assertThat(chv.info().state()).as("boot never reached CHV").isEqualTo(VmState.Created);
            for (VirtiofsdShare share : shares.shares) {
                assertThat(share.isAlive()).as("no daemon was connected and dropped: " + share.socket).isTrue();
                assertThat(share.logText()).doesNotContain("Client connected");
            }
        }
    }

    @Test
    void restorePreflightReadsTheSnapshotConfig() throws Exception {
        ChvClient chv = vmm("a");
        Path snap = Files.createDirectory(dir.resolve("snap"));
        Files.writeString(snap.resolve("config.json"), "{\"fs\":[{\"tag\":\"ateRootfs\",\"socket\":\"" + dir.resolve("old.sock") + "\"}]}");
        assertThatThrownBy(() -> chv.restore(RestoreConfig.fromDirectory(snap, MemoryRestoreMode.Copy)))
                .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("old.sock does not exist");
        assertThatThrownBy(() -> chv.restore(new RestoreConfig("file://" + snap, null, null, null,
                List.of(new RestoredNetConfig("net0", 2))), List.of()))
                .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("net_fds describe 2 fd(s) but 0 are passed");
    }

    @Test
    void aHungCallTimesOutAndCanBeCancelled() throws Exception {
        ChvProcess process = ChvUnderTest.start(dir, "hang");
        started.add(process);
        Path api = process.launch().apiSocket();
        try (SandboxShares shares = SandboxShares.start(dir, "g1")) {
            VmConfig good = shares.config("g1");
            // what the preflight refuses, sent raw: CHV v54 hangs its API on two fs entries sharing a socket
            String sameSocket = new String(ChvClient.body(withFs(good, List.of(good.fs().get(0), FsConfig.of("x", good.fs().get(0).socket())))),
                    StandardCharsets.UTF_8);
            RawChv.assertNoContent("vm.create two fs on one socket (CHV accepts it)", new RawChv(api).put("vm.create", sameSocket));
            var transport = new UnixHttpTransport(api);
            assertThatThrownBy(() -> transport.exchange("PUT", "/api/v1/vm.boot", null, List.of(), Duration.ofMillis(700)))
                    .isInstanceOfSatisfying(ChvTimeoutException.class, e -> {
                        assertThat(e.timeout()).isEqualTo(Duration.ofMillis(700));
                        assertThat(e.endpoint()).isEqualTo("PUT /api/v1/vm.boot");
                    });
            var client = new ChvClient(api, ChvTimeouts.all(Duration.ofSeconds(60)));
            AtomicReference<Thread> caller = new AtomicReference<>();
            CompletableFuture<Throwable> interrupted = pingInItsOwnThread(client, caller);
            awaitWaitingForAnAnswer(caller);
            caller.get().interrupt();
            assertThat(interrupted.get()).as("interrupting the caller cancels the call")
                    .isInstanceOf(ChvTransportException.class).hasMessageContaining("cancelled");
            AtomicReference<Thread> second = new AtomicReference<>();
            CompletableFuture<Throwable> closed = pingInItsOwnThread(client, second);
            awaitWaitingForAnAnswer(second);
            client.close();
            assertThat(closed.get()).as("closing the client aborts calls in flight").isInstanceOf(ChvTransportException.class);
        }
    }

    @Test
    void processLifecycle() throws Exception {
        ChvProcess process = ChvUnderTest.start(dir, "p");
        started.add(process);
        VmmPingResponse ping = process.client().ping();
        assertThat(ping.pid()).isEqualTo(process.pid());
        assertThat(process.version()).as("the version of the ready ping, kept").isEqualTo(ping.version()).isNotBlank();
        assertThatThrownBy(() -> ChvUnderTest.start(dir, "p")).as("api socket in use")
                .isInstanceOf(ChvTransportException.class).hasMessageContaining("already exists");
        assertThat(process.stop(Duration.ofSeconds(10))).as("vmm.shutdown: exit code").isZero();
        assertThat(process.isAlive()).isFalse();

        Path fails = dir.resolve("fails");
        Files.writeString(fails, "#!/bin/sh\necho 'bad flag' \"$@\" >&2\nexit 3\n");
        fails.toFile().setExecutable(true);
        var launch = new ChvLaunch(fails, dir.resolve("f.sock"), null, dir.resolve("f.out"), 0, Duration.ofSeconds(5), null);
        assertThatThrownBy(() -> ChvProcess.start(launch)).isInstanceOf(ChvTransportException.class)
                .hasMessageContaining("exited with 3").hasMessageContaining("bad flag --api-socket " + dir.resolve("f.sock"));
        var tooLong = new ChvLaunch(fails, dir.resolve("x".repeat(110)), null, null, 0, null, null);
        assertThatThrownBy(() -> ChvProcess.start(tooLong)).hasMessageContaining("longer than 107 bytes");

        ChvProcess killed = ChvUnderTest.start(dir, "k");
        started.add(killed);
        killed.kill();
        assertThat(killed.isAlive()).isFalse();
        assertThatThrownBy(() -> killed.client().ping()).isInstanceOf(ChvTransportException.class);
    }

    private static VmConfig withFs(VmConfig config, List<FsConfig> fs) {
        return new VmConfig(config.cpus(), config.memory(), config.payload(), fs, config.vsock(), config.serial(), config.console(),
                config.rng(), config.platform(), config.net());
    }

    /**
     * A ping on a fresh thread, never a pool's: a cancelled call leaves its thread's interrupt flag set (as it
     * should), and a pooled thread that ran the first call would cancel the next one before it was sent.
     */
    private static CompletableFuture<Throwable> pingInItsOwnThread(ChvClient client, AtomicReference<Thread> caller) {
        var outcome = new CompletableFuture<Throwable>();
        Thread thread = Thread.ofPlatform().name("ping-" + System.nanoTime()).unstarted(() -> {
            try {
                client.ping();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        caller.set(thread);
        thread.start();
        return outcome;
    }

    /** Until the thread is inside the transport's bounded wait: the call is in flight, not about to start. */
    private static void awaitWaitingForAnAnswer(AtomicReference<Thread> caller) {
        Eventually.until(Duration.ofSeconds(10), () -> caller.get() != null && Arrays.stream(caller.get().getStackTrace())
                .anyMatch(f -> f.getClassName().equals(UnixHttpTransport.class.getName()) && f.getMethodName().equals("awaitReady")),
                "the call to wait inside the transport", () -> caller.get() == null ? "no caller yet" : Arrays.toString(caller.get().getStackTrace()));
    }
}
