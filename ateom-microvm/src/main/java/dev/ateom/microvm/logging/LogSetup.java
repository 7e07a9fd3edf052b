package dev.ateom.microvm.logging;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/** Routes all JDK logging (and so {@link System.Logger} and Helidon) to JSON lines on stderr. */
public final class LogSetup {
    private LogSetup() {}

    public static void install(String level) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        Level julLevel = switch (level) {
            case "ERROR" -> Level.SEVERE;
            case "WARNING" -> Level.WARNING;
            case "DEBUG" -> Level.FINE;
            case "TRACE" -> Level.FINEST;
            default -> Level.INFO;
        };
        Handler handler = new ConsoleHandler();
        handler.setFormatter(new JsonLogFormatter());
        handler.setLevel(julLevel);
        root.addHandler(handler);
        root.setLevel(julLevel);
    }
}
