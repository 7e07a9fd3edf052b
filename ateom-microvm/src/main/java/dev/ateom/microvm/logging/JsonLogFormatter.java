package dev.ateom.microvm.logging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/** One JSON object per line: time, level, logger, thread, message, context fields, exception. */
public final class JsonLogFormatter extends Formatter {
    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public String format(LogRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("ts", Instant.ofEpochMilli(record.getMillis()).toString());
            json.writeStringField("level", levelName(record.getLevel()));
            json.writeStringField("logger", record.getLoggerName());
            json.writeStringField("thread", Thread.currentThread().getName());
            json.writeStringField("msg", formatMessage(record));
            for (Map.Entry<String, String> field : LogContext.current().entrySet()) {
                json.writeStringField(field.getKey(), field.getValue());
            }
            if (record.getThrown() != null) {
                json.writeStringField("error", String.valueOf(record.getThrown()));
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                json.writeStringField("stack", trace.toString());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append('\n').toString();
    }

    private static String levelName(Level level) {
        if (level.intValue() >= Level.SEVERE.intValue()) return "ERROR";
        if (level.intValue() >= Level.WARNING.intValue()) return "WARN";
        if (level.intValue() >= Level.INFO.intValue()) return "INFO";
        if (level.intValue() >= Level.FINE.intValue()) return "DEBUG";
        return "TRACE";
    }
}
