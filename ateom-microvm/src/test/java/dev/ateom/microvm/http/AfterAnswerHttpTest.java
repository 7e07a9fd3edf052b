package dev.ateom.microvm.http;

import dev.ateom.microvm.timing.AfterAnswer;
import io.helidon.webserver.http.HttpService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Work a route leaves for after its answer ({@link AfterAnswer}) runs once the client has the answer: the work waits
 * for the client to say it got it, so if it ran before the answer was sent, neither would get on until the work's wait
 * ran out.
 */
class AfterAnswerHttpTest {
    private static final long WAIT_SECONDS = 20;

    @TempDir Path dir;

    @Test
    void theWorkRunsAfterTheClientHasTheAnswer() throws Exception {
        ApiToken token = ApiToken.loadOrCreate(dir.resolve("api-token"));
        CountDownLatch answered = new CountDownLatch(1);
        CompletableFuture<Boolean> workSawTheAnswer = new CompletableFuture<>();
        HttpService route = rules -> rules.post("/work", (req, res) -> {
            AfterAnswer.run(() -> {
                try {
                    workSawTheAnswer.complete(answered.await(WAIT_SECONDS, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    workSawTheAnswer.completeExceptionally(e);
                }
            });
            Responses.json(res, 200, List.of("answer"));
        });
        try (ApiServer server = new ApiServer("127.0.0.1", 0, 4096, token, List.of(route))) {
            HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.port() + "/work"))
                    .timeout(Duration.ofSeconds(WAIT_SECONDS * 2))
                    .header("Authorization", "Bearer " + Files.readString(token.file()).strip())
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            answered.countDown();
            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.body()).contains("answer");
            assertThat(workSawTheAnswer.get(WAIT_SECONDS * 2, TimeUnit.SECONDS)).as("the work ran once the answer had arrived").isTrue();
        }
    }
}
