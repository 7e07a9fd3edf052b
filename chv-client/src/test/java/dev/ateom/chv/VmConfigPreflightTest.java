package dev.ateom.chv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The listener check before vm.create / vm.restore, against real listening sockets in a temp dir. */
class VmConfigPreflightTest {
    @TempDir
    Path dir;

    @Test
    void aSocketIsListenedOnByItsBoundNameAndThroughAHardLink() throws Exception {
        Path bound = dir.resolve("bound.sock");
        Path link = dir.resolve("link.sock");
        try (ServerSocketChannel server = listen(bound)) {
            Files.createLink(link, bound);

            assertThatCode(() -> VmConfigPreflight.checkListeners("vm.restore", List.of(FsConfig.of("a", bound.toString()))))
                    .doesNotThrowAnyException();
            assertThatCode(() -> VmConfigPreflight.checkListeners("vm.restore", List.of(FsConfig.of("a", link.toString()))))
                    .as("a second name of the bound file reaches the same listener").doesNotThrowAnyException();
        }
    }

    @Test
    void aLinkToASocketNobodyListensOnIsRefused() throws Exception {
        Path bound = dir.resolve("gone.sock");
        Path link = dir.resolve("gone-link.sock");
        listen(bound).close();
        Files.createLink(link, bound);

        assertThatThrownBy(() -> VmConfigPreflight.checkListeners("vm.restore", List.of(FsConfig.of("a", link.toString()))))
                .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("has no listener");
    }

    private static ServerSocketChannel listen(Path path) throws Exception {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        return server;
    }
}
