package dev.ateom.e2b;

import dev.ateom.microvm.sandbox.AlreadyExistsException;
import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.HostToolsUnavailableException;
import dev.ateom.microvm.sandbox.InvalidSpecException;
import dev.ateom.microvm.sandbox.InvalidStateException;
import dev.ateom.microvm.sandbox.NetworkUnavailableException;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.SandboxException;
import dev.ateom.microvm.sandbox.SnapshotNameTakenException;
import dev.ateom.microvm.template.TemplateException;

/** The daemon's failures as E2B errors, with the statuses the SDK maps (404 not found, 409 state, 400, 503). */
final class E2bErrors {
    private E2bErrors() {}

    static E2bError of(Throwable e) {
        return switch (e) {
            case E2bError error -> error;
            case NotFoundException notFound -> E2bError.notFound(notFound.getMessage());
            case BusyException busy -> E2bError.conflict(busy.getMessage());
            case InvalidStateException state -> E2bError.conflict(state.getMessage());
            case AlreadyExistsException exists -> E2bError.conflict(exists.getMessage());
            case SnapshotNameTakenException taken -> E2bError.conflict(taken.getMessage());
            case InvalidSpecException invalid -> E2bError.badRequest(invalid.getMessage());
            case HostToolsUnavailableException tools -> new E2bError(503, tools.getMessage());
            case NetworkUnavailableException network -> new E2bError(503, network.getMessage());
            case SandboxException other -> new E2bError(500, other.getMessage());
            case TemplateException template -> switch (template.kind()) {
                case NOT_FOUND -> E2bError.notFound(template.getMessage());
                case INVALID -> E2bError.badRequest(template.getMessage());
                case TAKEN, IN_USE -> E2bError.conflict(template.getMessage());
                case NOT_READY -> new E2bError(504, template.getMessage());
            };
            default -> new E2bError(500, e.getClass().getSimpleName() + ": " + e.getMessage());
        };
    }
}
