package dev.ateom.chv;

/** VM state as vm.info reports it. */
public enum VmState {
    Created, Running, Shutdown, Paused, BreakPoint
}
