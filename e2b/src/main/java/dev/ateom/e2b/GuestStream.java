package dev.ateom.e2b;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A blocking byte stream to a guest's vsock port through the VM's hybrid vsock socket ({@code CONNECT <port>\n},
 * answered {@code OK <n>\n}). The answer line is read a byte at a time, so nothing the guest sends after it is taken
 * from the stream. CHV closes the socket when nothing listens on the port: that is an {@link IOException}.
 */
final class GuestStream implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;

    private GuestStream(SocketChannel channel) {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
        this.out = Channels.newOutputStream(channel);
    }

    static GuestStream open(Path vsockSocket, long port) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        GuestStream stream = new GuestStream(channel);
        try {
            channel.connect(UnixDomainSocketAddress.of(vsockSocket));
            stream.out.write(("CONNECT " + port + "\n").getBytes(StandardCharsets.US_ASCII));
            String answer = stream.readLine(64);
            if (answer == null) throw new IOException("guest port " + port + " refused the connection (nothing listening?)");
            if (!answer.startsWith("OK ")) throw new IOException("guest port " + port + " answered '" + answer + "' instead of OK");
            return stream;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    InputStream in() { return in; }

    OutputStream out() { return out; }

    /** A line without its CR LF or LF, read byte by byte; null at end of stream before any byte. */
    String readLine(int maxLength) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (line.isEmpty()) return null;
                throw new IOException("stream ended inside a line");
            }
            if (b == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') line.setLength(end - 1);
                return line.toString();
            }
            if (line.length() >= maxLength) throw new IOException("line longer than " + maxLength + " bytes");
            line.append((char) b);
        }
    }

    /** Says no more bytes will be sent (a half close), keeping the answer readable. */
    void shutdownOutput() throws IOException { channel.shutdownOutput(); }

    @Override
    public void close() throws IOException { channel.close(); }

    /** A write buffer for the guest's socket: {@link ByteBuffer} free, used by the HTTP head writers. */
    static byte[] ascii(String text) { return text.getBytes(StandardCharsets.ISO_8859_1); }
}
