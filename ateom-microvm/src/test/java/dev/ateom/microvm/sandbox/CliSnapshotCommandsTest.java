package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.Main;
import dev.ateom.microvm.cli.ExitCodes;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The issue-16 commands of the {@code ateom} CLI, run in process ({@link Main#commandLine()}) against an in-process
 * daemon (CHV stand-in, {@code none} backend): {@code checkpoint}, {@code fork}, {@code events}, {@code get -w}, and
 * the snapshot name and label flags of {@code suspend}, {@code checkpoint} and {@code snapshots}; their output and exit
 * codes, a missing sandbox's included.
 */
class CliSnapshotCommandsTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.VMM_POOL, "0"));

    @Test
    void checkpointWithNameAndLabelsThenTheListingFiltersAndInspectShowsThem() throws Exception {
        daemon.createOk(daemon.spec("cli-cp", "cli-cp"));
        Run checkpoint = cli("checkpoint", "cli-cp", "--name", "cli-base", "--label", "team=a", "--label", "tier=gold");
        assertThat(checkpoint.exit).as(checkpoint.toString()).isEqualTo(ExitCodes.OK);
        assertThat(checkpoint.out).contains("cli-cp", "RUNNING", "snapshot: cli-cp-", "guest paused", "timings (ms):");
        String snapshot = daemon.get("/v1/sandboxes/cli-cp").body().path("latestSnapshotId").asText();

        Run listed = cli("snapshots", "--sandbox", "cli-cp", "--label", "team=a");
        assertThat(listed.exit).as(listed.toString()).isEqualTo(ExitCodes.OK);
        assertThat(listed.out).contains("NAME", "LABELS", "PARENT", snapshot, "cli-base", "team=a,tier=gold");
        Run none = cli("snapshots", "--label", "team=b");
        assertThat(none.out).doesNotContain(snapshot);
        Run byName = cli("snapshots", "--name", "cli-base", "-o", "json");
        assertThat(byName.out).contains("\"id\" : \"" + snapshot + "\"", "\"name\" : \"cli-base\"");

        Run inspected = cli("inspect", snapshot);
        assertThat(inspected.out).contains("\"name\" : \"cli-base\"", "\"tier\" : \"gold\"").doesNotContain("parentSnapshotId");

        Run taken = cli("checkpoint", "cli-cp", "--name", "cli-base");
        assertThat(taken.exit).as("a taken name: %s", taken).isEqualTo(ExitCodes.CONFLICT);
        assertThat(taken.err).contains("cli-base");
        Run badLabel = cli("checkpoint", "cli-cp", "--label", "novalue");
        assertThat(badLabel.exit).as(badLabel.toString()).isEqualTo(ExitCodes.USAGE);
        Run badFilter = cli("snapshots", "--label", "bad key=v");
        assertThat(badFilter.exit).as(badFilter.toString()).isEqualTo(ExitCodes.API_ERROR);
        assertThat(badFilter.err).contains("label");
    }

    @Test
    void suspendWithNameAndLabelsAndTheParentAfterAResume() throws Exception {
        daemon.createOk(daemon.spec("cli-sus", "cli-sus"));
        Run suspended = cli("suspend", "cli-sus", "--name", "cli-sus-1", "--label", "k=v");
        assertThat(suspended.exit).as(suspended.toString()).isEqualTo(ExitCodes.OK);
        assertThat(suspended.out).contains("SUSPENDED", "snapshot: cli-sus-");
        String first = daemon.get("/v1/sandboxes/cli-sus").body().path("latestSnapshotId").asText();
        assertThat(cli("resume", "cli-sus").exit).isEqualTo(ExitCodes.OK);
        assertThat(cli("suspend", "cli-sus").exit).isEqualTo(ExitCodes.OK);
        String second = daemon.get("/v1/sandboxes/cli-sus").body().path("latestSnapshotId").asText();
        Run listed = cli("snapshots", "--sandbox", "cli-sus");
        String secondRow = listed.out.lines().filter(line -> line.startsWith(second)).findFirst().orElseThrow();
        assertThat(secondRow).as("the second snapshot's parent is the first").contains(first);
        String firstRow = listed.out.lines().filter(line -> line.startsWith(first)).findFirst().orElseThrow();
        assertThat(firstRow).contains("cli-sus-1", "k=v");
    }

    @Test
    void forkListsEveryCloneAndMissingSandboxesExitWithNotFound() throws Exception {
        daemon.createOk(daemon.spec("cli-fork", "cli-fork"));
        Run fork = cli("fork", "cli-fork", "-n", "2", "--name-prefix", "cli-kid");
        assertThat(fork.exit).as(fork.toString()).isEqualTo(ExitCodes.OK);
        assertThat(fork.out).contains("2 running, 0 failed", "cli-kid-1", "cli-kid-2", "RUNNING");
        assertThat(daemon.get("/v1/sandboxes/cli-kid-2").body().path("state").asText()).isEqualTo("RUNNING");

        for (List<String> command : List.of(List.of("checkpoint", "no-such"), List.of("fork", "no-such", "-n", "1"),
                List.of("get", "no-such"), List.of("get", "-w", "no-such"), List.of("suspend", "no-such", "--name", "x"))) {
            Run missing = cli(command.toArray(String[]::new));
            assertThat(missing.exit).as("%s: %s", command, missing).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(missing.err).contains("no-such");
        }
        assertThat(cli("checkpoint", "cli-kid-1").exit).as("a clone is an ordinary running sandbox").isEqualTo(ExitCodes.OK);
        assertThat(cli("suspend", "cli-kid-1").exit).isEqualTo(ExitCodes.OK);
        assertThat(cli("checkpoint", "cli-kid-1").exit).as("a suspended sandbox cannot be checkpointed").isEqualTo(ExitCodes.CONFLICT);
    }

    /** {@code get -w} shows the sandbox, then follows its events until it is deleted, and ends by itself then. */
    @Test
    void getWatchFollowsTheSandboxUntilItIsDeleted() throws Exception {
        daemon.createOk(daemon.spec("cli-watch", "cli-watch"));
        ByteArrayOutputStream watched = new ByteArrayOutputStream();
        CompletableFuture<Integer> watch = runInBackground(watched, "get", "-w", "cli-watch");
        Eventually.until(Duration.ofSeconds(30), () -> text(watched).contains("RUNNING"), "get -w to show the sandbox", () -> text(watched));
        assertThat(daemon.post("/v1/sandboxes/cli-watch/suspend", "{}").status()).isEqualTo(200);
        assertThat(daemon.delete("/v1/sandboxes/cli-watch").status()).isEqualTo(204);
        assertThat(watch.get()).as(text(watched)).isEqualTo(ExitCodes.OK);
        assertThat(text(watched)).contains("cli-watch RUNNING -> SUSPENDING (suspend)", "cli-watch SUSPENDING -> SUSPENDED (suspend)",
                "cli-watch suspend done", "cli-watch deleted");
    }

    /**
     * {@code events} follows the stream until the daemon goes away; {@code --since} an id the ring never had is refused.
     * A daemon of its own, so closing it ends the stream.
     */
    @Test
    void eventsFollowsTheStreamAndRefusesAnExpiredSince(@TempDir Path own) throws Exception {
        Run expired = cli("events", "--since", "999999");
        assertThat(expired.exit).as(expired.toString()).isEqualTo(ExitCodes.API_ERROR);
        assertThat(expired.err).contains("older than the ring");

        ByteArrayOutputStream followed = new ByteArrayOutputStream();
        CompletableFuture<Integer> events;
        try (DaemonHarness other = new DaemonHarness(own, Map.of(ConfigOption.VMM_POOL, "0"))) {
            events = runInBackground(followed, List.of("--url", "http://127.0.0.1:" + other.daemon.port(),
                    "--token-file", other.stateDir().resolve("api-token").toString()), "events", "--since", "0", "--sandbox", "cli-ev");
            other.createOk(other.spec("cli-ev", "cli-ev"));
            assertThat(other.post("/v1/sandboxes/cli-ev/checkpoint", "{}").status()).isEqualTo(200);
            assertThat(other.delete("/v1/sandboxes/cli-ev").status()).isEqualTo(204);
            Eventually.until(Duration.ofSeconds(30), () -> text(followed).contains("cli-ev deleted"), "events to show the delete",
                    () -> text(followed));
        }
        int exit = events.get();
        assertThat(text(followed)).contains("cli-ev (new) -> CREATING (create)", "cli-ev CREATING -> RUNNING (create)",
                "cli-ev checkpoint done", "cli-ev delete done", "cli-ev deleted");
        assertThat(exit).as("the stream ended with the daemon: %s", text(followed)).isIn(ExitCodes.OK, ExitCodes.UNREACHABLE);
    }

    record Run(int exit, String out, String err) {}

    /** {@code ateom <args> --url <the daemon> --token-file <its token>}: exit code, stdout and stderr. */
    private static synchronized Run cli(String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            exit = Main.commandLine().execute(argv(defaultTarget(), args));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        return new Run(exit, text(out), text(err));
    }

    /**
     * A following command in a thread of its own; its output goes to {@code out} (System.out is swapped meanwhile).
     * Not on the common fork-join pool: its one worker on 2 cores would sit in the stream's blocking read for the whole
     * test, and whatever else in this JVM has a stage there would wait (the in-process daemon's exit detection did
     * until stop 47: docs/decisions.md, "A child's exit is seen without the common fork-join pool").
     */
    private static CompletableFuture<Integer> runInBackground(ByteArrayOutputStream out, String... args) {
        return runInBackground(out, defaultTarget(), args);
    }

    private static CompletableFuture<Integer> runInBackground(ByteArrayOutputStream out, List<String> target, String... args) {
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        return CompletableFuture.supplyAsync(() -> Main.commandLine().execute(argv(target, args)), command -> Thread.ofPlatform()
                        .name("cli-" + args[0]).daemon().start(command))
                .whenComplete((exit, e) -> System.setOut(stdout));
    }

    private static List<String> defaultTarget() {
        return List.of("--url", "http://127.0.0.1:" + daemon.port(), "--token-file", daemon.stateDir().resolve("api-token").toString());
    }

    private static String[] argv(List<String> target, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        argv.addAll(target);
        return argv.toArray(String[]::new);
    }

    private static String text(ByteArrayOutputStream out) { return out.toString(StandardCharsets.UTF_8); }
}
