package dev.ateom.microvm.cli;

/** Exit codes of the client subcommands, stable for scripts. */
public final class ExitCodes {
    public static final int OK = 0;
    /** The daemon refused or failed the request (any other 4xx/5xx). */
    public static final int API_ERROR = 1;
    /** Bad command line (picocli's own usage errors also use 2). */
    public static final int USAGE = 2;
    /** The daemon could not be reached or the token file could not be read. */
    public static final int UNREACHABLE = 3;
    /** 404: no such sandbox or snapshot. */
    public static final int NOT_FOUND = 4;
    /** 409: the sandbox is not in a state that allows the operation. */
    public static final int CONFLICT = 5;

    private ExitCodes() {}

    static int forStatus(int status) {
        return switch (status) {
            case 404 -> NOT_FOUND;
            case 409 -> CONFLICT;
            default -> API_ERROR;
        };
    }
}
