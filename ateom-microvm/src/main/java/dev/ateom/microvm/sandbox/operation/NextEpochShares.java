package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.jail.VmmJailer;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * A sandbox's next resume's three virtiofsd, started ahead ({@link ShareSetsAhead}) in the next epoch's run dir, with
 * the jail confined in their own cgroup right after their start, off the resume's path. What a suspend's teardown and
 * a running sandbox's standby ({@link StandbyShares}) both start; a set with exactly these shares already there is
 * kept, with its paths. The caller holds the entry's monitor, which a resume's RESUMING also takes.
 */
final class NextEpochShares {
    /** Whether a start takes another set's place when the budget is full (a suspended sandbox's) or only free room. */
    enum Room { MAKE, ONLY_IF_FREE }

    private NextEpochShares() {}

    static void start(OperationContext context, SandboxRecord record, SandboxLayout layout, Room room) throws IOException {
        VirtiofsdLauncher launcher = context.virtiofsd();
        if (launcher == null) return;
        ShareSetsAhead ahead = context.sharesAhead();
        int epoch = record.epochs() + 1;
        SandboxLayout.EpochLayout next = layout.epoch(epoch);
        List<ShareSpec> specs = context.vms().shareSpecs(record, layout, next);
        if (ahead.holds(record.id(), specs)) return; // serving (or starting) on these very paths: the dir stays too
        if (room == Room.ONLY_IF_FREE && !ahead.hasRoomFor(record.id())) return;
        TreeRemoval.removeRecursively(next.dir());
        Files.createDirectories(next.dir());
        String cgroup = VmmJailer.sharesCgroupName(layout.runName(), epoch);
        int vcpus = record.spec().vcpusOrDefault();
        VmmJailer jailer = context.vms().jailer();
        if (room == Room.MAKE) ahead.startAhead(record.id(), launcher, specs, set -> jailer.confineAhead(set, cgroup, vcpus));
        else ahead.startIfRoom(record.id(), launcher, specs, set -> jailer.confineAhead(set, cgroup, vcpus));
    }
}
