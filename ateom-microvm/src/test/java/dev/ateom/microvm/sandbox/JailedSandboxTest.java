package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.jail.UidRange;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.process.ProcessTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every VMM jailed (the default {@code --jail on}), the CHV stand-in ({@code none} backend) as the VMM: create,
 * suspend, resume, clone and delete, each claiming a warm member of the VMM pool (jailed since its start, handed its
 * sandbox's files and cgroup at the claim), each VMM seen from the host through /proc (its own uid, no capabilities,
 * no_new_privs, namespaces not the daemon's, in the sandbox's cgroup with the sandbox's limits) and
 * nothing of a jail left after delete but the idle members'. A restart adopts a jailed survivor (its uid and cgroup
 * kept) and removes a dead daemon's cgroups.
 */
class JailedSandboxTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @TempDir
    Path restartRoot;

    private static final String WARM_CLAIMS = "ateom_vmm_pool_claims_total{source=\"warm\"}";
    private static final String COLD_CLAIMS = "ateom_vmm_pool_claims_total{source=\"cold\"}";

    @Test
    void createSuspendResumeCloneDeleteJailed() throws Exception {
        daemon.awaitPoolFull();
        double warm = Math.max(0, daemon.metric(WARM_CLAIMS));
        JsonNode created = daemon.createOk(daemon.spec("jailed", "jailed")).body().path("sandbox");
        JsonNode jail = created.path("runtime").path("jail");
        assertJailed(created.path("runtime"));
        assertThat(daemon.metric(WARM_CLAIMS)).as("create claimed a warm, jailed member").isEqualTo(warm + 1);
        assertSharesInCgroup(created.path("runtime"));
        assertThat(Files.readString(Path.of(firstPath(jail, "memory")).resolve(jail.path("cgroupVersion").asInt() == 1
                ? "memory.limit_in_bytes" : "memory.max")).trim()).isEqualTo(jail.path("memoryBytes").asText());

        assertThat(daemon.metrics()).as("the cgroup's memory in /metrics").containsPattern(
                "(?m)^ateom_sandbox_cgroup_memory_bytes\\{sandbox=\"jailed\"} [1-9]");

        JsonNode suspended = daemon.post("/v1/sandboxes/jailed/suspend", "{}").body();
        String snapshotId = suspended.path("snapshotId").asText();
        assertThat(snapshotId).as(suspended.toString()).isNotEmpty();
        daemon.awaitTeardowns();
        assertCgroupsGone(jail, "after suspend");
        // what the jailed VMM wrote is root's again, readable by the next VMM whatever its uid
        assertNoFileOfJailUids(daemon.stateDir().resolve("snapshots").resolve(snapshotId));

        daemon.awaitPoolFull();
        JsonNode resumeAnswer = daemon.post("/v1/sandboxes/jailed/resume", "{}").body();
        JsonNode resumed = resumeAnswer.path("sandbox");
        assertThat(resumed.path("state").asText()).as(resumed.toString()).isEqualTo("RUNNING");
        assertThat(resumeAnswer.path("timingsMs").has("jailShares")).as("the move into the cgroup is timed: %s",
                resumeAnswer.path("timingsMs")).isTrue();
        assertJailed(resumed.path("runtime"));
        assertSharesInCgroup(resumed.path("runtime"));
        assertThat(resumed.path("runtime").path("jail").path("sharesCgroup").asText()).as("the epoch's own shares' cgroup")
                .isEqualTo("jailed-e" + resumed.path("runtime").path("epoch").asInt() + "-fs");
        assertThat(daemon.metric(WARM_CLAIMS)).as("resume claimed a warm member").isEqualTo(warm + 2);

        daemon.awaitPoolFull();
        JsonNode cloned = daemon.createOk(DaemonApi.cloneRequest(snapshotId, "jailed-clone")).body().path("sandbox");
        assertJailed(cloned.path("runtime"));
        assertSharesInCgroup(cloned.path("runtime"));
        assertThat(daemon.metric(WARM_CLAIMS)).as("clone claimed a warm member").isEqualTo(warm + 3);
        assertThat(cloned.path("runtime").path("jail").path("uid").asInt()).as("never two live VMMs with one uid")
                .isNotEqualTo(resumed.path("runtime").path("jail").path("uid").asInt());
        assertThat(cloned.path("runtime").path("jail").path("cgroup").asText())
                .isNotEqualTo(resumed.path("runtime").path("jail").path("cgroup").asText());

        for (String id : List.of("jailed", "jailed-clone")) {
            assertThat(daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
        }
        for (JsonNode runtime : List.of(resumed.path("runtime"), cloned.path("runtime"))) {
            assertCgroupsGone(runtime.path("jail"), "after delete");
            assertThat(running(runtime.path("jail").path("vmmPid").asLong())).as("the VMM after delete").isFalse();
        }
        // what is left of jails is the idle members' alone: their pool dirs and roots, as many as are ready
        daemon.awaitPoolFull();
        int idle = (int) daemon.metric("ateom_vmm_pool_ready");
        assertNoFileOfJailUids(daemon.root(), daemon.runDir().resolve(".vmm-pool"));
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("no jail mount in the daemon's namespace").doesNotContain("/.jail/");
        try (Stream<Path> poolDirs = Files.list(daemon.runDir().resolve(".vmm-pool"))) {
            assertThat(poolDirs.toList()).as("pool dirs after delete: the idle members'").hasSize(idle);
        }
        try (Stream<Path> roots = Files.list(daemon.runDir().resolve(".jail"))) {
            assertThat(roots.map(r -> r.getFileName().toString()).toList()).as("jail roots after delete: the idle members'")
                    .hasSize(idle).allMatch(name -> name.startsWith("pool_"));
        }
    }

    /**
     * A resume sent the moment its suspend answered starts while that suspend's teardown still ends the old VMM: the
     * new VMM's jail is its epoch's own (uid, cgroup, outbox), so the resume does not wait for the teardown, and the
     * teardown ends only the old jail. Three rounds, each suspend writing its snapshot through the previous resume's
     * outbox.
     */
    @Test
    void aResumeRightAfterItsSuspendGetsAJailOfItsOwnWithoutWaitingForTheTeardown() throws Exception {
        daemon.awaitPoolFull();
        JsonNode before = daemon.createOk(daemon.spec("back2back", "back2back")).body().path("sandbox").path("runtime");
        for (int round = 0; round < 3; round++) {
            JsonNode suspended = daemon.post("/v1/sandboxes/back2back/suspend", "{}").body();
            assertThat(suspended.path("snapshotId").asText()).as(suspended.toString()).isNotEmpty();
            JsonNode answer = daemon.post("/v1/sandboxes/back2back/resume", "{}").body();
            JsonNode after = answer.path("sandbox").path("runtime");
            assertThat(answer.path("sandbox").path("state").asText()).as(answer.toString()).isEqualTo("RUNNING");
            assertThat(answer.path("timingsMs").has("previousTeardown")).as("the resume waited for the old VMM's teardown: %s",
                    answer.path("timingsMs")).isFalse();
            JsonNode oldJail = before.path("jail");
            JsonNode newJail = after.path("jail");
            assertThat(newJail.path("cgroup").asText()).isNotEqualTo(oldJail.path("cgroup").asText());
            assertThat(newJail.path("outbox").asText()).as("the epoch's own outbox").endsWith("/vmm-out-e" + after.path("epoch").asInt())
                    .isNotEqualTo(oldJail.path("outbox").asText());

            // the old VMM's teardown runs after the suspend's answer and is not awaited by the resume, which is running by
            // now: awaitTeardowns (suspended sandboxes only) does not see it, so its end is waited for here, its jail's
            // release ending with the root and the outbox (after the cgroups)
            Path oldOutbox = Path.of(oldJail.path("outbox").asText());
            Path oldRoot = Path.of(oldJail.path("root").asText());
            Eventually.until(Duration.ofSeconds(60), () -> !Files.exists(oldOutbox) && !Files.exists(oldRoot),
                    "the old VMM's teardown to release its jail (" + oldOutbox + ", " + oldRoot + ")");
            assertThat(running(oldJail.path("vmmPid").asLong())).as("the old VMM").isFalse();
            assertCgroupsGone(oldJail, "of the old VMM");
            assertThat(Path.of(oldJail.path("outbox").asText())).as("the old outbox").doesNotExist();
            assertThat(Path.of(oldJail.path("root").asText())).as("the old root").doesNotExist();
            // the old teardown left the new jail whole
            assertJailed(after);
            assertSharesInCgroup(after);
            assertThat(Path.of(newJail.path("outbox").asText())).as("the new outbox").isDirectory();
            before = after;
        }
        assertThat(daemon.delete("/v1/sandboxes/back2back?deleteSnapshots=true").status()).isEqualTo(204);
        assertCgroupsGone(before.path("jail"), "after delete");
        assertThat(Path.of(before.path("jail").path("root").asText())).doesNotExist();
    }

    @Test
    void aRestartAdoptsAJailedSurvivorAndRemovesADeadDaemonsCgroups() throws Exception {
        Map<ConfigOption, String> outliving = Map.of(ConfigOption.CHILDREN_DIE_WITH_DAEMON, "false");
        JsonNode before;
        try (DaemonHarness first = new DaemonHarness(restartRoot, outliving)) {
            before = first.createOk(first.spec("survivor", "survivor")).body().path("sandbox").path("runtime");
        }
        assertJailed(before);
        long vmm = before.path("jail").path("vmmPid").asLong();
        assertThat(ProcessHandle.of(vmm).map(ProcessHandle::isAlive)).as("the VMM outlived its daemon").hasValue(true);
        // a cgroup of a VMM whose daemon died and whose record is gone: a stray process still in it
        Path parent = Path.of(firstPath(before.path("jail"), "pids")).getParent();
        Path ghost = Files.createDirectories(parent.resolve("ghost"));
        Process stray = new ProcessBuilder("sleep", "300").start();
        List<Path> ghostDirs = new ArrayList<>();
        for (JsonNode p : before.path("jail").path("cgroupPaths")) {
            Path dir = Files.createDirectories(Path.of(p.asText()).getParent().resolve("ghost"));
            Files.writeString(dir.resolve("cgroup.procs"), String.valueOf(stray.pid()));
            ghostDirs.add(dir);
        }
        assertThat(ghost).exists();

        try (DaemonHarness second = new DaemonHarness(restartRoot, outliving)) {
            JsonNode adopted = second.get("/v1/sandboxes/survivor").body();
            assertThat(adopted.path("state").asText()).isEqualTo("RUNNING");
            assertThat(adopted.path("runtime").path("jail").path("uid").asInt()).isEqualTo(before.path("jail").path("uid").asInt());
            assertThat(cgroupMembers(before.path("jail"))).as("the survivor's cgroup kept").contains(vmm);
            // and its shares' cgroup, not taken for a leftover
            assertSharesInCgroup(adopted.path("runtime"));
            assertThat(adopted.path("runtime").path("jail").path("sharesCgroup").asText()).isEqualTo(before.path("jail").path("sharesCgroup").asText());
            for (Path dir : ghostDirs) assertThat(dir).as("a dead daemon's cgroup").doesNotExist();
            assertThat(stray.waitFor(30, TimeUnit.SECONDS)).as("what ran in it was killed").isTrue();

            assertThat(second.delete("/v1/sandboxes/survivor").status()).isEqualTo(204);
            assertCgroupsGone(before.path("jail"), "after delete");
            assertThat(running(vmm)).as("the survivor's VMM after delete").isFalse();
        } finally {
            stray.destroyForcibly();
            if (ProcessHandle.of(before.path("chvPid").asLong()).isPresent()) {
                // a failure above left the survivor: a daemon that outlives nothing removes it
                try (DaemonHarness last = new DaemonHarness(restartRoot, Map.of())) {
                    last.delete("/v1/sandboxes/survivor");
                }
            }
        }
        assertNoFileOfJailUids(restartRoot);
    }

    @Test
    void aSandboxNoMemberCanServeGetsAColdJailedVmmAndThePoolKeepsItsMembers() throws Exception {
        // a member's file size limit has room for a guest as large as the host's memory, no larger
        long hostMib = Long.parseLong(Files.readString(Path.of("/proc/meminfo")).lines().filter(l -> l.startsWith("MemTotal:"))
                .findFirst().orElseThrow().replaceAll("\\D", "")) >> 10;
        assertThat(hostMib + 2048).as("a guest larger than this host's memory is a valid spec").isLessThanOrEqualTo(262_144);
        try (DaemonHarness harness = new DaemonHarness(restartRoot, Map.of())) {
            harness.awaitPoolFull();
            Set<Long> idle = poolVmms(harness);
            double warm = Math.max(0, harness.metric(WARM_CLAIMS));
            double cold = Math.max(0, harness.metric(COLD_CLAIMS));
            ObjectNode spec = harness.spec("large", "large").put("memoryMib", hostMib + 2048);
            JsonNode runtime = harness.createOk(spec).body().path("sandbox").path("runtime");
            assertJailed(runtime);
            assertThat(harness.metric(COLD_CLAIMS)).as("started cold").isEqualTo(cold + 1);
            assertThat(Math.max(0, harness.metric(WARM_CLAIMS))).isEqualTo(warm);
            assertThat(idle).as("no member thrown away").allMatch(JailedSandboxTest::running).doesNotContain(runtime.path("jail").path("vmmPid").asLong());
            assertThat(harness.delete("/v1/sandboxes/large").status()).isEqualTo(204);
            assertCgroupsGone(runtime.path("jail"), "after delete");
        }
    }

    @Test
    void aHandOverThatFailsDiscardsTheMemberAndTheBringUpStartsAColdJailedVmm() throws Exception {
        try (DaemonHarness harness = new DaemonHarness(restartRoot, Map.of())) {
            harness.awaitPoolFull();
            Set<Long> idle = poolVmms(harness);
            // every member's injector gone: a claim's hand-over cannot bind the sandbox's files in
            Set<String> launchers = idle.stream().map(vmm -> ProcessHandle.of(vmm).flatMap(ProcessHandle::parent).orElseThrow().pid())
                    .map(String::valueOf).collect(Collectors.toSet());
            List<ProcessHandle> injectors = ProcessHandle.current().descendants().filter(p -> p.info().arguments().map(List::of)
                    .map(args -> args.indexOf("--inject") >= 0 && launchers.contains(args.get(args.indexOf("--inject") + 1))).orElse(false))
                    .toList();
            assertThat(injectors).as("one injector per idle member, waiting").hasSize(idle.size());
            for (ProcessHandle injector : injectors) {
                injector.destroyForcibly();
                injector.onExit().get(30, TimeUnit.SECONDS);
            }
            JsonNode runtime = harness.createOk(harness.spec("fallback", "fallback")).body().path("sandbox").path("runtime");
            assertJailed(runtime);
            long vmm = runtime.path("jail").path("vmmPid").asLong();
            assertThat(idle).as("a cold VMM, not a member").doesNotContain(vmm);
            assertThat(idle.stream().filter(JailedSandboxTest::running).count()).as("the claimed member was discarded").isEqualTo(idle.size() - 1);
            assertThat(runtime.path("jail").path("cgroup").asText()).as("the cold jail's cgroup is named after the sandbox and epoch")
                    .isEqualTo("fallback-e" + runtime.path("epoch").asInt());
            assertThat(harness.delete("/v1/sandboxes/fallback").status()).isEqualTo(204);
            assertCgroupsGone(runtime.path("jail"), "after delete");
            assertThat(running(vmm)).isFalse();
        }
        assertNoFileOfJailUids(restartRoot);
    }

    /**
     * A clone that takes what was made ahead for it ({@code --clone-ahead}) is jailed like any: the jailed VMM reaches the
     * shares through the links in its own run dir (the stand-in connects to each over vhost-user at the restore), and
     * the virtiofsd keep the cgroup of their own they were moved into when made ahead, which goes with the clone.
     */
    @Test
    void aCloneOnSharesMadeAheadIsJailedLikeAny() throws Exception {
        try (DaemonHarness harness = new DaemonHarness(restartRoot, Map.of(ConfigOption.CLONE_AHEAD, "1"))) {
            harness.createOk(harness.spec("ahead-src", "ahead-src"));
            String snapshot = harness.post("/v1/sandboxes/ahead-src/suspend", "{}").body().path("snapshotId").asText();
            harness.createOk(DaemonApi.cloneRequest(snapshot, "ahead-k1"));
            Path made = harness.runDir().resolve(".clones-ahead");
            Eventually.until(Duration.ofSeconds(60), () -> Files.isDirectory(harness.stateDir().resolve("clones-ahead"))
                    && TestTools.sockets(made).size() == 3, "a clone made ahead, its three virtiofsd listening");

            JsonNode second = harness.createOk(DaemonApi.cloneRequest(snapshot, "ahead-k2")).body();

            assertThat(second.path("timingsMs").has("durable")).as("it took what was made ahead: %s", second.path("timingsMs")).isFalse();
            JsonNode runtime = second.path("sandbox").path("runtime");
            assertJailed(runtime);
            assertSharesInCgroup(runtime);
            assertThat(runtime.path("jail").path("sharesCgroup").asText()).as("confined when made ahead").startsWith("clone-ahead-").endsWith("-fs");
            for (String id : List.of("ahead-k1", "ahead-k2")) assertThat(harness.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
            assertThat(harness.delete("/v1/sandboxes/ahead-src?deleteSnapshots=true").status()).isEqualTo(204);
            assertCgroupsGone(runtime.path("jail"), "after delete");
        }
        assertNoFileOfJailUids(restartRoot);
    }

    /** The idle members' VMMs: processes whose API socket is under the pool dir, below their jail launcher. */
    private static Set<Long> poolVmms(DaemonHarness harness) {
        String pool = harness.runDir().resolve(".vmm-pool") + "/";
        long self = ProcessHandle.current().pid();
        return ProcessHandle.current().descendants().filter(p -> {
            List<String> args = p.info().arguments().map(List::of).orElse(List.of());
            int socket = args.indexOf("--api-socket") + 1;
            return socket > 0 && args.get(socket).startsWith(pool) && p.parent().map(parent -> parent.pid() != self).orElse(false)
                    && !args.contains("--uid");
        }).map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /** The runtime's VMM, seen from the host: jailed as the issue asks. */
    private static void assertJailed(JsonNode runtime) throws IOException {
        JsonNode jail = runtime.path("jail");
        assertThat(jail.isObject()).as("runtime.jail in " + runtime).isTrue();
        int uid = jail.path("uid").asInt();
        assertThat(UidRange.DEFAULT.contains(uid)).as("uid " + uid).isTrue();
        long vmm = jail.path("vmmPid").asLong();
        assertThat(ProcessHandle.of(runtime.path("chvPid").asLong()).orElseThrow().children().map(ProcessHandle::pid))
                .as("the VMM is the jail launcher's child").containsExactly(vmm);
        String status = Files.readString(Path.of("/proc", String.valueOf(vmm), "status"));
        assertThat(status).containsPattern("(?m)^Uid:\\s+" + uid + "\\s+" + uid + "\\s+" + uid + "\\s+" + uid + "$")
                .containsPattern("(?m)^Gid:\\s+" + uid + "\\s")
                .contains("NoNewPrivs:\t1").contains("CapEff:\t0000000000000000").contains("CapPrm:\t0000000000000000")
                .contains("CapBnd:\t0000000000000000").contains("CapAmb:\t0000000000000000");
        for (String ns : List.of("mnt", "net", "pid")) {
            String theirs = Files.readSymbolicLink(Path.of("/proc", String.valueOf(vmm), "ns", ns)).toString();
            assertThat(theirs).as(ns + " namespace").isNotEqualTo(Files.readSymbolicLink(Path.of("/proc/self/ns", ns)).toString())
                    .isEqualTo(jail.path("namespaces").path(ns).asText());
        }
        long launcher = runtime.path("chvPid").asLong();
        assertThat(cgroupMembers(jail)).as("in its cgroup, with its launcher").contains(vmm, launcher);
        assertThat(Files.readString(Path.of("/proc", String.valueOf(vmm), "cgroup"))).as("its cgroup per /proc")
                .contains("/" + jail.path("cgroup").asText() + "\n");
        // a warm member's cgroup became the sandbox's at the claim: the sandbox's limits, not the member's
        assertThat(Files.readString(Path.of(firstPath(jail, "memory")).resolve(jail.path("cgroupVersion").asInt() == 1
                ? "memory.limit_in_bytes" : "memory.max")).trim()).as("the sandbox's memory limit").isEqualTo(jail.path("memoryBytes").asText());
        assertThat(Files.readString(Path.of(firstPath(jail, "pids")).resolve("pids.max")).trim()).isEqualTo(jail.path("pidsMax").asText());
        assertThat(jail.path("pidsMax").asLong()).isPositive();
        assertThat(jail.path("memoryBytes").asLong()).isGreaterThan(512L << 20);
    }

    /** Whether {@code pid} runs (a zombie, killed and waiting for its reaper, does not). */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The three virtiofsd of the sandbox are in their own cgroup, each with its whole tree (the namespace-sandbox child,
     * which serves the guest and holds the share's memory, was forked before the move and would otherwise stay in the
     * daemon's), with the shares' limits, and none of them in the VMM's.
     */
    private static void assertSharesInCgroup(JsonNode runtime) throws IOException {
        JsonNode jail = runtime.path("jail");
        assertThat(jail.path("sharesCgroup").asText()).as("runtime.jail.sharesCgroup in %s", jail).isNotEmpty()
                .isNotEqualTo(jail.path("cgroup").asText());
        List<Long> members = members(jail.path("sharesCgroupPaths").get(0).asText());
        List<Long> vmmMembers = cgroupMembers(jail);
        for (JsonNode share : runtime.path("shares")) {
            long pid = share.path("pid").asLong();
            List<Long> tree = new ArrayList<>(List.of(pid));
            ProcessTree.descendants(pid).forEach(descendant -> tree.add(descendant.pid()));
            assertThat(tree).as("virtiofsd %s and its sandbox child", share.path("tag").asText()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(members).as("the shares' cgroup holds all of %s's tree", share.path("tag").asText()).containsAll(tree);
            assertThat(vmmMembers).as("the VMM's cgroup").doesNotContainAnyElementsOf(tree);
        }
        String pidsDir = null;
        for (JsonNode p : jail.path("sharesCgroupPaths")) if (pidsDir == null || p.asText().contains("/pids/")) pidsDir = p.asText();
        assertThat(Files.readString(Path.of(pidsDir, "pids.max")).trim()).as("the shares' pids limit").isEqualTo(jail.path("pidsMax").asText());
    }

    /** The cgroups of a jail, the VMM's and its shares', gone. */
    private static void assertCgroupsGone(JsonNode jail, String when) {
        for (String field : List.of("cgroupPaths", "sharesCgroupPaths")) {
            for (JsonNode path : jail.path(field)) assertThat(Path.of(path.asText())).as("%s %s", field, when).doesNotExist();
        }
    }

    private static List<Long> cgroupMembers(JsonNode jail) throws IOException {
        return members(jail.path("cgroupPaths").get(0).asText());
    }

    private static List<Long> members(String cgroupDir) throws IOException {
        List<Long> pids = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(cgroupDir, "cgroup.procs"))) {
            if (!line.isBlank()) pids.add(Long.parseLong(line.trim()));
        }
        return pids;
    }

    /** The cgroup dir of a controller (v1), or the one v2 dir. */
    private static String firstPath(JsonNode jail, String controller) {
        for (JsonNode p : jail.path("cgroupPaths")) if (p.asText().contains("/" + controller + "/")) return p.asText();
        return jail.path("cgroupPaths").get(0).asText();
    }

    private static void assertNoFileOfJailUids(Path dir) throws IOException {
        assertNoFileOfJailUids(dir, null);
    }

    /** No file under {@code dir} but those under {@code except} (when not null) belongs to a jail's uid. */
    private static void assertNoFileOfJailUids(Path dir, Path except) throws IOException {
        List<String> owned = new ArrayList<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                if (except != null && p.startsWith(except)) continue;
                int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                if (UidRange.DEFAULT.contains(uid)) owned.add(p + " (uid " + uid + ")");
            }
        }
        assertThat(owned).as("files of a jail uid under " + dir).isEmpty();
    }
}
