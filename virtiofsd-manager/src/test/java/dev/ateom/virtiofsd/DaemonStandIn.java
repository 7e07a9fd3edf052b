package dev.ateom.virtiofsd;

import java.nio.file.Path;

/**
 * A stand-in for the daemon, run as its own JVM by {@link AdoptionTest}: starts one share, prints
 * {@code PID <virtiofsd pid>}, then waits to be killed.
 * Arguments: virtiofsd binary, shared dir, run dir, dieWithDaemon (true|false).
 */
public final class DaemonStandIn {
    public static void main(String[] args) throws InterruptedException {
        VirtiofsdLauncher launcher = new VirtiofsdLauncher(VirtiofsdBinary.probe(Path.of(args[0])), VirtiofsdLauncher.Settings.DEFAULT);
        ShareOptions options = ShareOptions.DEFAULT.withDieWithDaemon(Boolean.parseBoolean(args[3]));
        VirtiofsdProcess process = launcher.start(ShareSpec.inRunDir("sb-standin", ShareKind.DURABLE, Path.of(args[1]), Path.of(args[2]), options));
        System.out.println("PID " + process.pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
