package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The progress of a waited-for operation: nothing for the first second, then a bar or the step, on a clock the test moves. */
class DelayedProgressBarTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final DelayedProgressBar bar = new DelayedProgressBar("suspending s-1", new PrintStream(err, true, StandardCharsets.UTF_8), nanos::get);

    @Test
    void anOperationThatEndsWithinASecondShowsNothing() throws Exception {
        nanos.addAndGet(900_000_000L);
        bar.update(operation("{\"state\": \"running\", \"step\": \"archive\", \"bytesDone\": 10, \"bytesTotal\": 100}"));
        bar.done(operation("{\"state\": \"succeeded\", \"step\": \"teardown\"}"));
        assertThat(bar.shown()).isFalse();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anOperationPastASecondShowsItsBytesThenItsEnd() throws Exception {
        nanos.addAndGet(999_999_999L);
        bar.update(operation("{\"state\": \"running\", \"step\": \"pause\"}"));
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        nanos.addAndGet(1);
        bar.update(operation("{\"state\": \"running\", \"step\": \"archive\", \"bytesDone\": 512, \"bytesTotal\": 1024}"));
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("\rsuspending s-1 [" + "#".repeat(15) + ".".repeat(15) + "] 50% ")
                .contains("archive 1.0 s");
        nanos.addAndGet(500_000_000L);
        bar.done(operation("{\"state\": \"succeeded\", \"step\": \"teardown\"}"));
        assertThat(err.toString(StandardCharsets.UTF_8)).endsWith("\rsuspending s-1 succeeded … 1.5 s   " + System.lineSeparator());
    }

    @Test
    void aStepWithoutATotalShowsTheBytesOrTheTime() throws Exception {
        assertThat(DelayedProgressBar.line("cloning x", operation("{\"state\": \"running\", \"step\": \"pull\", \"bytesDone\": 2048}"), 2))
                .isEqualTo("cloning x pull 2.0 KiB 2.0 s");
        assertThat(DelayedProgressBar.line("forking x", operation("{\"state\": \"running\", \"step\": \"clones\"}"), 3.25))
                .isEqualTo("forking x clones … 3.3 s");
    }

    private static JsonNode operation(String json) throws Exception { return JSON.readTree(json); }
}
