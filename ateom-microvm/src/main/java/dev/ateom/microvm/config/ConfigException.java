package dev.ateom.microvm.config;

/** A setting that cannot be used; the message names the option, where it came from and why. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) { super(message); }

    public ConfigException(String message, Throwable cause) { super(message, cause); }
}
