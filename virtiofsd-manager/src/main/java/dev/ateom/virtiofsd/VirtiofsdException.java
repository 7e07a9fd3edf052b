package dev.ateom.virtiofsd;

/** A virtiofsd could not be started, adopted, inspected or stopped; the message names the share and the reason. */
public class VirtiofsdException extends RuntimeException {
    public VirtiofsdException(String message) { super(message); }
    public VirtiofsdException(String message, Throwable cause) { super(message, cause); }
}
