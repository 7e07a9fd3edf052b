package dev.ateom.chv.vsock;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One raw {@code PUT /api/v1/<endpoint>} on a CHV API socket, bypassing ChvClient's pre-flight checks, so a test
 * sees what the VMM itself answers.
 *
 * @param status HTTP status
 * @param body   response body (CHV's error chain is a JSON array of strings)
 */
record RawApiCall(int status, String body) {

    static RawApiCall put(Path apiSocket, String endpoint, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "PUT /api/v1/" + endpoint + " HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(apiSocket));
            channel.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
            channel.write(ByteBuffer.wrap(body));
            InputStream in = Channels.newInputStream(channel);
            String statusLine = line(in);
            int length = 0;
            for (String header; !(header = line(in)).isEmpty(); ) {
                if (header.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(header.substring(15).trim());
                }
            }
            return new RawApiCall(Integer.parseInt(statusLine.split(" ")[1]), new String(in.readNBytes(length), StandardCharsets.UTF_8));
        }
    }

    private static String line(InputStream in) throws IOException {
        var out = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("connection closed inside the HTTP head");
            }
            if (b != '\r') {
                out.write(b);
            }
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
