package dev.ateom.network;

/** Every slot address of the pool is taken (or cooling down before reuse): try again later or grow the pool. */
public final class PoolExhaustedException extends NetworkException {
    PoolExhaustedException(String message) {
        super(message, null);
    }
}
