package dev.ateom.jail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** A {@link JailSpec} as the argv of the {@code ateom-jail} launcher, the program's argv after {@code --}. */
public final class JailCommand {
    private JailCommand() {}

    /**
     * The full argv: {@code launcher <options> -- program...}.
     *
     * @param dieWithParent whether the launcher (and so the program) gets SIGKILL when its parent thread ends
     */
    public static List<String> argv(Path launcher, JailSpec spec, boolean dieWithParent, List<String> program) {
        if (program.isEmpty()) throw new IllegalArgumentException("no program to jail");
        List<String> argv = new ArrayList<>(prefix(launcher, spec, dieWithParent));
        argv.addAll(program);
        return argv;
    }

    /** Everything before the program: the launcher and its options, ending with {@code --}. */
    public static List<String> prefix(Path launcher, JailSpec spec, boolean dieWithParent) {
        List<String> argv = new ArrayList<>(List.of(launcher.toString(), "--uid", String.valueOf(spec.uid()), "--gid", String.valueOf(spec.gid())));
        spec.kvmGid().ifPresent(g -> argv.addAll(List.of("--kvm-gid", String.valueOf(g))));
        argv.addAll(List.of("--root", spec.root().toString()));
        spec.mountPoints().forEach(p -> argv.addAll(List.of("--tmpfs", p.toString())));
        for (BindMount bind : spec.binds()) {
            argv.addAll(List.of(bind.readOnly() ? "--ro-bind" : "--bind", bind.source().toString(), bind.target().toString()));
        }
        spec.devices().forEach(d -> argv.addAll(List.of("--dev", d.toString())));
        spec.netns().ifPresentOrElse(ns -> argv.addAll(List.of("--netns", ns.toString())), () -> argv.add("--new-netns"));
        spec.cgroups().forEach(c -> argv.addAll(List.of("--cgroup", c.toString())));
        spec.rlimits().entrySet().stream().sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
                .forEach(e -> argv.addAll(List.of("--rlimit", e.getKey().launcherName(), String.valueOf(e.getValue()))));
        spec.landlockRw().forEach(p -> argv.addAll(List.of("--landlock-rw", p.toString())));
        spec.landlockRo().forEach(p -> argv.addAll(List.of("--landlock-ro", p.toString())));
        if (spec.procfs()) argv.add("--proc");
        if (spec.denyTcp()) argv.add("--landlock-deny-tcp");
        if (dieWithParent) argv.add("--die-with-parent");
        argv.add("--");
        return argv;
    }

    /**
     * The launcher's argv that binds {@code binds} into the mount namespace of the running jail of {@code pid} (its
     * launcher or program), each at its target there, below one of the jail's mount points.
     */
    public static List<String> inject(Path launcher, long pid, List<BindMount> binds) {
        if (binds.isEmpty()) throw new IllegalArgumentException("nothing to inject");
        List<String> argv = new ArrayList<>(List.of(launcher.toString(), "--inject", String.valueOf(pid)));
        for (BindMount bind : binds) {
            argv.addAll(List.of(bind.readOnly() ? "--ro-bind" : "--bind", bind.source().toString(), bind.target().toString()));
        }
        return argv;
    }

    /**
     * The argv of an injection started ahead: the launcher opens the jail's mount namespace of {@code pid} now and reads
     * its binds from stdin later ({@link #injectInput}), so the claim pays no process start.
     */
    public static List<String> injectLater(Path launcher, long pid) {
        return List.of(launcher.toString(), "--inject", String.valueOf(pid), "-");
    }

    /** What an injection started ahead reads on its stdin: the binds' arguments, each ended by a NUL. */
    public static byte[] injectInput(List<BindMount> binds) {
        if (binds.isEmpty()) throw new IllegalArgumentException("nothing to inject");
        StringBuilder input = new StringBuilder();
        for (BindMount bind : binds) {
            for (String arg : List.of(bind.readOnly() ? "--ro-bind" : "--bind", bind.source().toString(), bind.target().toString())) {
                if (arg.indexOf('\0') >= 0) throw new IllegalArgumentException("a NUL in " + arg);
                input.append(arg).append('\0');
            }
        }
        return input.toString().getBytes(StandardCharsets.UTF_8);
    }
}
