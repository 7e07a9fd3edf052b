package dev.ateom.jail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The one place a VMM's jail is decided: every path at its host path (so the VMM's argv and API calls name the
 * same files inside as outside), the program and what it reads read-only, the run dir (and outbox) writable, the
 * three device nodes, the pid namespace's own {@code /proc}; Landlock repeats the same lists. A warm pool member's
 * jail adds empty mount points where its sandbox's files are bound in at its claim, Landlock's rules on them. The daemon's VMMs
 * and BrokenOutVmmTest's attacker get their jail from here alike.
 */
public final class VmmJails {
    /**
     * Device nodes a VMM opens: {@code /dev/kvm} only where the host has it. {@code /dev/random} too: a JVM (the
     * stand-in) seeds SecureRandom from it and, without it, from a thread-timing generator that takes ~10 s.
     */
    static final List<Path> DEVICES = List.of(Path.of("/dev/null"), Path.of("/dev/urandom"), Path.of("/dev/random"), Path.of("/dev/kvm"));

    private VmmJails() {}

    public static JailSpec spec(VmmJailRequest request) {
        List<BindMount> binds = new ArrayList<>();
        List<Path> rw = new ArrayList<>();
        List<Path> ro = new ArrayList<>();
        for (Path p : request.program()) {
            binds.add(BindMount.readOnly(p));
            ro.add(p);
        }
        for (Path p : request.readOnly()) {
            binds.add(BindMount.readOnly(p));
            ro.add(p);
        }
        for (Path p : request.writable()) {
            binds.add(BindMount.writable(p));
            rw.add(p);
        }
        // a parent mount point before one beneath it (a run dir inside an image root, say)
        List<Path> mountPoints = new ArrayList<>(request.mountPointsRw());
        mountPoints.addAll(request.mountPointsRo());
        mountPoints.sort(Comparator.comparingInt(Path::getNameCount));
        rw.addAll(request.mountPointsRw());
        ro.addAll(request.mountPointsRo());
        List<Path> devices = DEVICES.stream().filter(Files::exists).toList();
        for (Path device : devices) (device.getFileName().toString().endsWith("random") ? ro : rw).add(device);
        ro.add(Path.of("/proc"));
        Map<Rlimit, Long> limits = new EnumMap<>(Rlimit.class);
        limits.put(Rlimit.NOFILE, request.nofile());
        limits.put(Rlimit.CORE, 0L);
        limits.put(Rlimit.FSIZE, request.fsizeBytes());
        // the uid is this VMM's alone: its nproc is its task count, the same bound as the cgroup's
        limits.put(Rlimit.NPROC, request.cgroup().map(c -> c.limits().pidsMax()).orElse(1024L));
        return new JailSpec(request.uid(), request.uid(), request.kvmGid(), request.root(), mountPoints, binds, devices, request.netns(),
                request.cgroup().map(SandboxCgroup::dirs).orElse(List.of()), limits, rw, ro, true, true);
    }
}
