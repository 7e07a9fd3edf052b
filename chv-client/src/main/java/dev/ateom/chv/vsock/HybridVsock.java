package dev.ateom.chv.vsock;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The host end of Cloud Hypervisor's hybrid vsock: connect to the VM's {@code vsock.socket} (a Unix socket),
 * send {@code CONNECT <port>\n}, and read {@code OK <host port>\n}; after that the stream is connected to the
 * guest's listener on that vsock port. CHV closes the socket instead when nothing listens on the port.
 */
public record HybridVsock(Path socket) {

    /** Opens a stream to the guest's {@code port}; the caller owns (and closes) the returned connection. */
    public DeadlineChannel connect(long port, Duration timeout) throws IOException {
        Instant deadline = Instant.now().plus(timeout);
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        DeadlineChannel connection = null;
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            connection = new DeadlineChannel(channel);
            connection.writeAll(ByteBuffer.wrap(("CONNECT " + port + "\n").getBytes(StandardCharsets.US_ASCII)), deadline);
            String answer = connection.readLine(deadline, 64);
            if (answer == null) {
                throw new IOException("vsock " + socket + ": port " + port + " refused (connection closed, nothing listening in the guest?)");
            }
            if (!answer.startsWith("OK ")) {
                throw new IOException("vsock " + socket + ": port " + port + " answered '" + answer + "' instead of 'OK <port>'");
            }
            return connection;
        } catch (IOException | RuntimeException e) {
            // The connection owns a selector (an epoll and an eventfd): closing only the channel leaked both on
            // every refused connect, and readiness waits retry a refused connect many times.
            if (connection != null) {
                connection.close();
            } else {
                channel.close();
            }
            throw e;
        }
    }
}
