package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.jail.PoolMemberJails;
import dev.ateom.microvm.jail.VmmJail;
import dev.ateom.microvm.jail.VmmJailer;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.vm.VmmPool;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.INFO;

/**
 * A bring-up's CHV with the jail on: a warm pool member whose hand-over (its sandbox's files bound into its root, its
 * cgroup limited for the sandbox) runs beside the bring-up until {@link StartedChv#await}, or, when no member can serve
 * the sandbox or the hand-over fails, one started cold in a jail made for it. Everything it starts or takes registers
 * its undo in the caller's {@link Rollback}: the jail ends after its CHV is killed, a member whose hand-over failed goes
 * back to the pool's discard.
 */
final class JailedChvStart {
    private static final System.Logger LOG = System.getLogger(JailedChvStart.class.getName());

    private final VmmPool pool;
    private final VmmJailer jailer;
    private final PoolMemberJails memberJails;
    private final boolean childrenDieWithDaemon;

    JailedChvStart(VmmPool pool, VmmJailer jailer, PoolMemberJails memberJails, boolean childrenDieWithDaemon) {
        this.pool = pool;
        this.jailer = jailer;
        this.memberJails = memberJails;
        this.childrenDieWithDaemon = childrenDieWithDaemon;
    }

    /** @param launch the CHV a cold start runs (in the epoch's dir), before the jail's prefix is added */
    StartedChv start(SandboxRecord record, SandboxLayout layout, SandboxLayout.EpochLayout el, int epoch, Optional<Path> restoreDir,
                     ChvLaunch launch, Rollback rollback) {
        SandboxSpec spec = record.spec();
        List<Path> readOnly = new ArrayList<>();
        if (spec.kernel() != null) readOnly.add(Path.of(spec.kernel()));
        if (spec.initramfs() != null) readOnly.add(Path.of(spec.initramfs()));
        String name = layout.runName();
        int vcpus = spec.vcpusOrDefault();
        int memoryMib = spec.memoryMib() == null ? 512 : spec.memoryMib();
        Path outbox = layout.vmmOutbox(epoch);
        // registered before the kill: the rollback runs last to first, so the jail ends after CHV is killed
        rollback.add("end the jail of cloud-hypervisor", () -> jailer.release(record.id(), epoch));
        Supplier<ChvProcess> cold = () -> {
            VmmJail jail = jailer.prepare(record.id(), name, epoch, vcpus, memoryMib, readOnly, el.dir(), restoreDir, outbox,
                    childrenDieWithDaemon);
            ChvProcess chv = ChvProcess.start(launch.withJail(jail.prefix()).withEnvironment(jail.environment()));
            rollback.add("kill cloud-hypervisor", chv::kill);
            return chv;
        };
        CompletableFuture<Path> claimedFrom = new CompletableFuture<>();
        CompletableFuture<VmmJail> handOver = new CompletableFuture<>();
        Optional<String> misfit = memberJails.misfit(memoryMib, readOnly, el.dir(), restoreDir, outbox);
        misfit.ifPresent(why -> LOG.log(INFO, "no pooled cloud-hypervisor can serve " + record.id() + " (" + why + "): starting one cold"));
        Optional<ChvProcess> warm = misfit.isPresent() ? pool.passOver() : pool.claim(el, (memberDir, member) -> {
            claimedFrom.complete(memberDir);
            Thread.ofVirtual().name("jail-hand-over-" + record.id()).start(() -> {
                try {
                    handOver.complete(memberJails.handOver(memberDir, record.id(), epoch, vcpus, memoryMib, readOnly, el.dir(),
                            restoreDir, outbox));
                } catch (Throwable e) {
                    // whatever ends the hand-over ends the future: the bring-up waits on it
                    handOver.completeExceptionally(e);
                }
            });
        });
        if (warm.isEmpty()) return StartedChv.ready(cold.get());
        ChvProcess member = warm.get();
        Path memberDir = claimedFrom.join();
        // once: a cold VMM started instead has the claim's paths (socket, logs) by then
        AtomicBoolean discarded = new AtomicBoolean();
        Runnable discard = () -> {
            if (discarded.compareAndSet(false, true)) pool.discardClaimed(memberDir, member);
        };
        rollback.add("kill cloud-hypervisor", member::kill);
        // a bring-up failing before it awaited the hand-over: the hand-over ends first; a failed one leaves the member's
        // jail to the pool's discard (the jail made for the sandbox, if any, ends by the first entry above)
        rollback.add("await the hand-over of the pooled cloud-hypervisor", () -> {
            try {
                handOver.join();
            } catch (CompletionException e) {
                discard.run();
            }
        });
        return StartedChv.handingOver(member, handOver, failure -> {
            discard.run();
            return cold.get();
        });
    }

}
