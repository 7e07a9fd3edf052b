package dev.ateom.chv;

import java.util.List;

/**
 * What the project knows a Cloud Hypervisor release answers where releases differ: one row per release, chosen from
 * {@code vmm.ping}'s version, so the same tests check a real v53, a real v54 and the stand-in playing either. The v53
 * row is what a real v53.0.0 answered ({@code reference/ateom-on-real-chv.md}, "The project's real-binary tests
 * against v53"); the v54 row is {@code reference/chv-samples}.
 *
 * @param version                  {@code vmm.ping}'s version
 * @param bootWithoutPayloadStatus {@code vm.boot} of a config without kernel or firmware
 * @param restoreMissingNetStatus  {@code vm.restore} of a descriptor-backed net without {@code net_fds}
 * @param waitsForVhostUser        boot and restore wait for an fs socket nobody listens on (v54: its 60 s timeout),
 *                                 rather than failing at once with the connect error (v53)
 */
record ChvBehaviour(String version, int bootWithoutPayloadStatus, int restoreMissingNetStatus, boolean waitsForVhostUser) {
    static final ChvBehaviour V53 = new ChvBehaviour("53.0.0", 500, 500, false);
    static final ChvBehaviour V54 = new ChvBehaviour("54.0.0", 400, 400, true);

    /** The row of the release whose {@code vmm.ping} answered {@code version}; a release without a row fails, naming it. */
    static ChvBehaviour of(String version) {
        for (ChvBehaviour row : List.of(V53, V54)) {
            if (row.version.equals(version)) {
                return row;
            }
        }
        throw new IllegalStateException("no behaviour table for Cloud Hypervisor " + version + ": add a row to ChvBehaviour");
    }

    /** The inner end of the chain of a boot or restore whose fs socket does not exist. */
    List<String> missingSocketChain() {
        return waitsForVhostUser ? List.of("Error from device manager", "Cannot create virtio-fs device", "Timed out waiting for vhost-user connection")
                : List.of("Error from device manager", "Cannot create virtio-fs device", "Connection to socket failed",
                        "vhost-user: can't connect to peer: No such file or directory (os error 2)");
    }

    /** The inner end of the chain of a boot or restore whose fs socket exists with nobody listening. */
    List<String> refusedSocketChain() {
        return waitsForVhostUser ? missingSocketChain()
                : List.of("Error from device manager", "Cannot create virtio-fs device", "Connection to socket failed",
                        "vhost-user: can't connect to peer: Connection refused (os error 111)");
    }
}
