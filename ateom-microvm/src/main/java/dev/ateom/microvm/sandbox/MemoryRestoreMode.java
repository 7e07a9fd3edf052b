package dev.ateom.microvm.sandbox;

/** CHV's {@code memory_restore_mode}: copy the whole memory file at restore, or fault pages in on demand (userfaultfd). */
public enum MemoryRestoreMode { Copy, OnDemand }
