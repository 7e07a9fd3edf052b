package dev.ateom.microvm.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 12, item 8: the token file is the daemon user's own secret, or the daemon does not start. */
class ApiTokenTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef\n";
    @TempDir Path dir;

    @Test
    void aTokenFileOwnedByAnotherUserIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("api-token"), TOKEN);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.setAttribute(file, "unix:uid", 65534);
        assertThatThrownBy(() -> ApiToken.loadOrCreate(file)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("owned by uid 65534");
    }

    @Test
    void aTokenFileOthersCanReadIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("api-token"), TOKEN);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> ApiToken.loadOrCreate(file)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("readable by others");
    }

    @Test
    void theDaemonsOwnPrivateTokenFileIsUsed() throws Exception {
        Path file = Files.writeString(dir.resolve("api-token"), TOKEN);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ApiToken token = ApiToken.loadOrCreate(file);
        assertThat(token.matches(TOKEN.strip())).isTrue();
        assertThat(token.created()).isFalse();
    }
}
