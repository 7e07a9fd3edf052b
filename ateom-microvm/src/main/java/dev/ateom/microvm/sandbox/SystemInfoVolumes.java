package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.systeminfo.RegenerationReport;
import dev.ateom.microvm.systeminfo.SystemInfoException;
import dev.ateom.microvm.systeminfo.SystemInfoService;
import dev.ateom.microvm.systeminfo.source.SourceException;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;

import java.util.List;

/** The lifecycle's three uses of a sandbox's system-info volumes, with failures as unchecked errors that name the sandbox. */
public final class SystemInfoVolumes {
    private static final System.Logger LOG = System.getLogger(SystemInfoVolumes.class.getName());
    private final SystemInfoService service;

    public SystemInfoVolumes(SystemInfoService service) { this.service = service; }

    /** Create: every volume for the new identity, before the system-info virtiofsd starts. */
    public void writeInitial(SandboxLayout layout, SystemInfoSpec spec, ActorIdentity identity) {
        try {
            service.forSandbox(layout.sandboxId(), layout.systemInfoDir(), spec).writeAll(identity);
        } catch (SystemInfoException e) {
            if (e.getCause() instanceof SourceException source) {
                // a source the request named cannot be read (a FIFO, a link leaving it, too many files): the request's fault
                throw new InvalidSpecException(List.of(new SpecViolation("systemInfo", source.getMessage())));
            }
            throw new IllegalStateException("cannot write the system-info volumes of sandbox " + layout.sandboxId() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Resume and clone: rewrite every retained generation for this identity while the VM is saved. */
    public void regenerate(SandboxLayout layout, SystemInfoSpec spec, ActorIdentity identity) {
        try {
            RegenerationReport report = service.forSandbox(layout.sandboxId(), layout.systemInfoDir(), spec).regenerateWhileSaved(identity);
            if (!report.complete()) {
                LOG.log(System.Logger.Level.WARNING, "sandbox " + layout.sandboxId() + " resumes with the last good content of "
                        + report.sourceFailures());
            }
        } catch (SystemInfoException e) {
            throw new IllegalStateException("cannot regenerate the system-info volumes of sandbox " + layout.sandboxId() + ": "
                    + e.getMessage(), e);
        }
    }

    /** While the VM runs: continuous sync of hostDirectory sources; close it before the VM is paused. */
    public AutoCloseable startSync(SandboxLayout layout, SystemInfoSpec spec, ActorIdentity identity) {
        return service.forSandbox(layout.sandboxId(), layout.systemInfoDir(), spec).startSync(identity);
    }
}
