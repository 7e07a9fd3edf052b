package dev.ateom.chv;

import java.util.List;

/** Anything that went wrong talking to Cloud Hypervisor; names the endpoint and keeps CHV's error chain. */
public abstract sealed class ChvException extends RuntimeException
        permits ChvApiException, ChvTimeoutException, ChvTransportException, ChvConfigRejectedException {
    private final String endpoint;

    protected ChvException(String endpoint, String message, Throwable cause) {
        super(endpoint + ": " + message, cause);
        this.endpoint = endpoint;
    }

    /** e.g. {@code "PUT /api/v1/vm.boot"}. */
    public String endpoint() {
        return endpoint;
    }

    /** HTTP status CHV answered, 0 when there was no answer. */
    public int status() {
        return 0;
    }

    /** CHV's error chain, outermost first; empty when there was no answer. */
    public List<String> chain() {
        return List.of();
    }
}
