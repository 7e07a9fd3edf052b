/**
 * virtiofsd for ateom sandboxes: the three share kinds and their flags, and supervised virtiofsd processes.
 *
 * <p>Supported virtiofsd: 1.14.0 (others are accepted when {@code --help} lists every flag in
 * {@link dev.ateom.virtiofsd.VirtiofsdArgv#REQUIRED_FLAGS}). Typical use by the daemon:
 * <pre>{@code
 * VirtiofsdLauncher launcher = new VirtiofsdLauncher(VirtiofsdBinary.probe(path), VirtiofsdLauncher.Settings.DEFAULT);
 * ShareSet shares = ShareSet.start(launcher, ShareSet.specs(id, Map.of(ROOTFS, image, DURABLE, durable,
 *         SYSTEM_INFO, systemInfo), runDir, ShareOptions.DEFAULT));
 * shares.socketsByTag();              // tag -> socket for the VM config's fs[] entries (each listens: a VMM may connect)
 * shares.awaitServing();              // each child has set itself up (start returns at the listen; rarely needed)
 * shares.failures(grace);             // after a failed vm.boot / vm.restore: which share could not serve, and why
 * shares.records();                   // persist; after a daemon restart: ShareSet.adopt(launcher, records)
 * shares.get(DURABLE).onExit();       // FRONTEND_DISCONNECTED after the VMM went away, CRASHED with a signal, ...
 * shares.stop();                      // SIGTERM, SIGKILL after the grace period; sockets and pid files removed
 * launcher.killLeftovers(socketPath); // whatever virtiofsd still serves a failed sandbox's socket
 * }</pre>
 * A set serves one VMM connection: virtiofsd exits when its frontend disconnects, so every boot or restore needs
 * a fresh set ({@link dev.ateom.virtiofsd.ShareSet#restart} on new socket paths).
 */
package dev.ateom.virtiofsd;
