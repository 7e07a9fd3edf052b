package dev.ateom.virtiofsd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.URISyntaxException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A virtiofsd that listens on its {@code --socket-path} like the real one and then fails its set-up ({@code exit}: the
 * real one's error line, exit status 3, 300 ms later), never finishes it ({@code hang}), or serves a VMM that leaves
 * before any poll could see it serve ({@code served}: the real one's lines, exit status 0, 300 ms later; it never
 * enters a seccomp filter): what a start that returns at the listen must still report. Only JDK classes, so it runs from this class's own directory.
 */
public final class ListeningFake {

    private ListeningFake() {}

    /** A script in {@code dir} that runs this fake in {@code mode}, as a virtiofsd binary the launcher accepts. */
    static VirtiofsdBinary binary(Path dir, String mode) throws IOException {
        Path classes;
        try {
            classes = Path.of(ListeningFake.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path script = dir.resolve("virtiofsd-" + mode);
        Files.writeString(script, "#!/bin/sh\nexec '" + java + "' -Xshare:auto -XX:TieredStopAtLevel=1 -cp '" + classes + "' "
                + ListeningFake.class.getName() + " " + mode + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new VirtiofsdBinary(script, "1.14.0", Set.of(), "");
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path socket = null;
        for (String arg : args) {
            if (arg.startsWith("--socket-path=")) socket = Path.of(arg.substring("--socket-path=".length()));
        }
        if (socket == null) throw new IllegalArgumentException("no --socket-path= among the arguments");
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(socket));
            System.out.println("[INFO  virtiofsd] Waiting for vhost-user socket connection...");
            if (mode.equals("served")) {
                Thread.sleep(300);
                System.out.println("[INFO  virtiofsd] Client connected, servicing requests");
                System.out.println("[INFO  virtiofsd] Client disconnected, shutting down");
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            if (mode.equals("exit")) {
                Thread.sleep(300);
                System.out.println("[ERROR virtiofsd] Error: cannot set up the sandbox: boom");
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
            Thread.sleep(Long.MAX_VALUE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
