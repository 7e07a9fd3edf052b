package dev.ateom.microvm.host;

/**
 * The Cloud Hypervisor the daemon was given.
 *
 * @param path      the binary found, or null when none was
 * @param version   what it says it is ({@code 54.0.0}), or null
 * @param supported whether sandboxes can run on it: found, and its version within {@link SupportedHypervisors}
 * @param supportedVersions the range accepted ({@code v53 to v54})
 * @param problem   why it cannot be used (the 503's words), or null
 */
public record HypervisorFacts(String path, String version, boolean supported, String supportedVersions, String problem) {}
