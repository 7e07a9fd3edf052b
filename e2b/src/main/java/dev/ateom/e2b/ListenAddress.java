package dev.ateom.e2b;

/** {@code --e2b-listen}: {@code HOST:PORT}, {@code [V6]:PORT} or a bare {@code PORT} (on 127.0.0.1). */
record ListenAddress(String host, int port) {

    static ListenAddress parse(String value) {
        String v = value.strip();
        int colon = v.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        String portText = colon < 0 ? v : v.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("e2b-listen: '" + value + "' is not HOST:PORT or PORT");
        }
        if (port < 0 || port > 65535 || host.isBlank()) throw new IllegalArgumentException("e2b-listen: '" + value + "' is not HOST:PORT or PORT");
        return new ListenAddress(host, port);
    }

    boolean isLoopback() { return host.equals("localhost") || host.startsWith("127.") || host.equals("::1"); }
}
