package dev.ateom.microvm.sandbox.operation;

/**
 * Whether a clone that succeeds has its snapshot's next clone made ahead ({@code --clone-ahead}, {@link ClonesAhead}).
 * The budget holds few snapshots and the least recently cloned makes room, so what is made ahead is worth making only
 * for a snapshot that will be cloned again.
 */
public enum NextCloneAhead {
    /** A snapshot that may be cloned again: a template, a suspended sandbox's snapshot, a named checkpoint. */
    MAKE,
    /**
     * A snapshot taken for this request's clones alone: a fork's own checkpoint of a running sandbox (the next fork
     * takes a checkpoint of its own). Making its next clone would spend three virtiofsd and a durable copy on a clone
     * that never comes, and push a template's out of the budget.
     */
    SKIP
}
