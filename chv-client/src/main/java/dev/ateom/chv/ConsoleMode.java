package dev.ateom.chv;

/** CHV's console/serial modes (spelled as on the wire). */
public enum ConsoleMode {
    Off, Pty, Tty, File, Socket, Null
}
