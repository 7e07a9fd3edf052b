package dev.ateom.chv;

/** How vm.restore loads guest memory: read it all ({@code Copy}) or fault pages in lazily ({@code OnDemand}, userfaultfd). */
public enum MemoryRestoreMode {
    Copy, OnDemand
}
