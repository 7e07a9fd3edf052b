package dev.ateom.microvm.http;

import dev.ateom.microvm.sandbox.SandboxException;

/**
 * The problem document any failure of a request would be answered with, as the API server's error handlers map
 * them: problems as they are, domain errors through {@link SandboxProblems}, anything else a 500. An asynchronous
 * operation keeps the problem its synchronous call would have answered.
 */
public final class ExceptionProblems {
    private static final System.Logger LOG = System.getLogger(ExceptionProblems.class.getName());

    private ExceptionProblems() {}

    public static Problem of(Throwable e, String instance) {
        ApiException problem = switch (e) {
            case ApiException api -> api;
            case SandboxException domain -> SandboxProblems.of(domain);
            default -> {
                LOG.log(System.Logger.Level.ERROR, "unhandled error in " + instance, e);
                yield new ApiException(500, "internal-error", "Internal error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        };
        return Problem.of(problem, instance);
    }
}
