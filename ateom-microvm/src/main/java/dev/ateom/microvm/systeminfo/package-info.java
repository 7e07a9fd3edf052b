/**
 * System-info volumes: files generated for a sandbox (its identity, mirrored host directories such
 * as Kubernetes Secrets) served read-only to the guest on the {@code ateSystemInfo} share, never
 * part of a snapshot.
 *
 * <p>Use from the daemon: one {@link dev.ateom.microvm.systeminfo.SystemInfoService} per daemon;
 * per sandbox {@code service.forSandbox(id, <state>/sandboxes/<id>/system-info, spec)} and then
 * {@code writeAll(identity)} on create, {@code startSync(identity)} while the VM runs (close the
 * returned {@link dev.ateom.microvm.systeminfo.SystemInfoSync} before pausing or deleting), and
 * {@code regenerateWhileSaved(identity)} on resume and clone before the share's virtiofsd starts.
 * Specs are validated with {@link dev.ateom.microvm.systeminfo.spec.SystemInfoSpecValidator}.
 *
 * <p>Layout of a volume ({@link dev.ateom.microvm.systeminfo.volume.VolumeWriter}): real files in
 * {@code <vol>/..data/}, a relative symlink {@code <vol>/<name> -> ..data/<name>} per top-level
 * name, earlier generations at fixed names {@code <vol>/..gen-<n>/}. A running commit stages the new
 * generation at a fresh {@code ..gen-<n>} and swaps it with {@code ..data} by
 * {@code renameat2(RENAME_EXCHANGE)}: no path that exists in both generations is ever absent, a
 * generation is immutable once visible, and what the guest held stays where virtiofsd's find-paths
 * migration will look for it. A saved commit replaces {@code ..data} and every retained
 * {@code ..gen-<n>} in place by the newest content, so a descriptor the guest held anywhere in the
 * volume reads the newest content after the restore.
 */
package dev.ateom.microvm.systeminfo;
