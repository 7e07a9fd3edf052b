package dev.ateom.virtiofsd;

/** The virtiofsd binary is missing, is not virtiofsd, or lacks a flag ateom needs. */
public class UnsupportedVirtiofsdException extends VirtiofsdException {
    public UnsupportedVirtiofsdException(String message) { super(message); }
    public UnsupportedVirtiofsdException(String message, Throwable cause) { super(message, cause); }
}
