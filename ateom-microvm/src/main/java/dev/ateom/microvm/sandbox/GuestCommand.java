package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.nio.file.Path;
import java.util.List;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Sends one command line to a running sandbox's guest probe, on the port its readiness names (else the default
 * {@value #DEFAULT_PORT}), over the VM's hybrid vsock socket. It takes no lock: a probe changes nothing the daemon
 * keeps, and must not hold back a suspend; one racing a suspend is told the probe did not answer.
 */
final class GuestCommand {
    /** The fixture guest's probe port ({@code ate.probe.port}). */
    static final long DEFAULT_PORT = 1024;
    private static final System.Logger LOG = System.getLogger(GuestCommand.class.getName());
    private final GuestProbe probe;

    GuestCommand(GuestProbe probe) { this.probe = probe; }

    ProbeResult run(SandboxRecord record, ProbeRequest request) {
        List<SpecViolation> violations = request.violations();
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
        if (record.state() != SandboxState.RUNNING || record.runtime() == null) {
            throw new InvalidStateException(record.id(), record.state(), "probe the guest of");
        }
        ReadinessSpec readiness = record.spec().readinessOrDefault();
        long port = readiness.usesProbe() ? readiness.port() : DEFAULT_PORT;
        long start = System.nanoTime();
        GuestProbeAnswer answer = probe.command(Path.of(record.runtime().vsockSocket()), port, request.command(), request.timeout());
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        return switch (answer) {
            case GuestProbeAnswer.Reply reply -> {
                LOG.log(DEBUG, "probe of sandbox " + record.id() + " answered '" + verb(request.command()) + "' in " + elapsedMs + " ms"
                        + (reply.ok() ? "" : " with " + reply.errno()));
                yield new ProbeResult(record.id(), request.command(), reply.ok(), reply.output(), reply.errno(), reply.message(), elapsedMs);
            }
            case GuestProbeAnswer.Silent silent -> {
                LOG.log(WARNING, "probe of sandbox " + record.id() + " did not answer '" + verb(request.command()) + "': " + silent.detail());
                throw new GuestProbeException(record.id(), record.state(), silent);
            }
        };
    }

    /** The command's first word: what is logged (a {@code write}'s data may be anything). */
    private static String verb(String command) {
        int space = command.indexOf(' ');
        return space < 0 ? command : command.substring(0, space);
    }
}
