package dev.ateom.microvm.template;

import java.nio.file.Path;
import java.time.Duration;

/** Asks a guest's HTTP server, over the VM's vsock, until it answers 2xx. */
public interface GuestHttpCheck {
    /** Returns once {@code GET path} on vsock {@code port} answered 2xx; throws {@link TemplateException} (NOT_READY) at the deadline. */
    void awaitHealthy(Path vsockSocket, long port, String path, Duration timeout);
}
