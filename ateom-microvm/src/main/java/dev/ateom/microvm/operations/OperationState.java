package dev.ateom.microvm.operations;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/** Where an asynchronous operation is: running, or finished one way or the other. */
public enum OperationState {
    RUNNING, SUCCEEDED, FAILED;

    @JsonValue
    public String wireName() { return name().toLowerCase(Locale.ROOT); }
}
