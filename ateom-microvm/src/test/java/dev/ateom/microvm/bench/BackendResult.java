package dev.ateom.microvm.bench;

import dev.ateom.microvm.systeminfo.SyncLag;

import java.util.Optional;

/** Everything measured on one backend's daemon; the sync lag on one backend only. */
record BackendResult(String backend, long startMillis, double idleRssMib, LifecycleResult lifecycle, ScalingResult scaling,
                     Optional<SyncLag.Result> syncLag) {

    /** The daemon's own goals: start to first answer, idle RSS, RSS with the most sandboxes the scaling ran. */
    String daemonMarkdown() {
        StringBuilder out = new StringBuilder(String.format("%n### %s backend: daemon%n%n| daemon | value | goal | met |%n|---|---:|---|---|%n",
                backend));
        out.append(String.format("| start → first answer | %d ms | ≤ 1000 ms | %s |%n", startMillis, startMillis <= 1000 ? "met" : "not met"));
        out.append(String.format("| idle RSS | %.0f MiB | ≤ 100 MiB | %s |%n", idleRssMib, idleRssMib <= 100 ? "met" : "not met"));
        scaling.memory().stream().reduce((a, b) -> b.running() > a.running() ? b : a).ifPresent(most -> out.append(String.format(
                "| RSS, %d running sandboxes | %.0f MiB (their CHV + virtiofsd: %.0f MiB) | printed | |%n",
                most.running(), most.daemonMib(), most.childrenMib())));
        return out.toString();
    }

    String markdown() {
        return lifecycle.markdown() + daemonMarkdown() + scaling.markdown();
    }
}
