package dev.ateom.network;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A bare HTTP/1.0 GET over a socket made on the calling thread (so in that thread's network namespace). */
public final class HttpGet {
    private HttpGet() {
    }

    /** The whole answer: status line, headers and body. */
    public static String fetch(Ipv4Address address, int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByAddress(address.octets()), port), 3000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The body of an answer ({@link #fetch}'s text after the blank line). */
    public static String body(String answer) {
        int blank = answer.indexOf("\r\n\r\n");
        return blank < 0 ? "" : answer.substring(blank + 4);
    }
}
