package dev.ateom.microvm.sandbox;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The messages one class logs at a level or above while this is open (the daemon logs through System.Logger, which
 * is java.util.logging here). A level its logger would drop, DEBUG's FINE say, is let through for that logger alone
 * until the close, as {@code --log-level} would for all.
 */
final class LoggedMessages extends Handler implements AutoCloseable {
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final Level atLeast;
    private final Level loggersLevel;

    private LoggedMessages(Logger logger, Level atLeast) {
        this.logger = logger;
        this.atLeast = atLeast;
        this.loggersLevel = logger.getLevel();
    }

    static LoggedMessages of(Class<?> source, Level atLeast) {
        LoggedMessages logged = new LoggedMessages(Logger.getLogger(source.getName()), atLeast);
        if (!logged.logger.isLoggable(atLeast)) logged.logger.setLevel(atLeast);
        logged.logger.addHandler(logged);
        return logged;
    }

    List<String> messages() { return messages; }

    @Override public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= atLeast.intValue()) messages.add(record.getMessage());
    }

    @Override public void flush() { }

    @Override public void close() {
        logger.removeHandler(this);
        logger.setLevel(loggersLevel);
    }
}
