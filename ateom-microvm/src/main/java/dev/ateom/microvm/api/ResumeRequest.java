package dev.ateom.microvm.api;

import dev.ateom.microvm.sandbox.RestoreOptions;

/**
 * The optional body of {@code POST /v1/sandboxes/{id}/resume}.
 *
 * @param allowCpuMismatch when the snapshot must be pulled from the store: pull it even if it was taken on another CPU
 */
record ResumeRequest(Boolean allowCpuMismatch) {
    static final ResumeRequest NONE = new ResumeRequest(null);

    RestoreOptions options() { return new RestoreOptions(Boolean.TRUE.equals(allowCpuMismatch)); }
}
