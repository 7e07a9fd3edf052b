package dev.ateom.network.os;

import java.io.IOException;

/** Work done on a thread that has entered a network namespace. */
@FunctionalInterface
public interface NamespaceCall<T> {
    T call() throws IOException;
}
