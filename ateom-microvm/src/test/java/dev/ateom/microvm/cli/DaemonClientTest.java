package dev.ateom.microvm.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What the CLI's client says before any daemon answers: a URL it cannot use, a daemon it cannot reach. */
class DaemonClientTest {
    @TempDir
    Path dir;

    @Test
    void aUrlThatIsNotHttpIsAUsageErrorNamingIt() throws IOException {
        for (String url : new String[] {"ftp://127.0.0.1/", "http://[::1"}) {
            ClientException e = catchThrowableOfType(ClientException.class, () -> client(url).get("/v1/sandboxes"));
            assertThat(e.exitCode()).as(url).isEqualTo(ExitCodes.USAGE);
            assertThat(e.getMessage()).as(url).startsWith("not a daemon URL: " + url);
        }
    }

    @Test
    void aDaemonThatDoesNotListenIsUnreachable() throws IOException {
        // port 1 (tcpmux) listens nowhere here: the connection is refused at once
        ClientException e = catchThrowableOfType(ClientException.class, () -> client("http://127.0.0.1:1").post("/v1/sandboxes", "{}"));
        assertThat(e.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(e.getMessage()).contains("cannot reach the ateom daemon at http://127.0.0.1:1");
    }

    private DaemonClient client(String url) throws IOException {
        ClientOptions options = new ClientOptions();
        options.url = url;
        options.tokenFile = Files.writeString(dir.resolve("token"), "t");
        options.output = ClientOptions.OutputFormat.table;
        return new DaemonClient(options);
    }
}
