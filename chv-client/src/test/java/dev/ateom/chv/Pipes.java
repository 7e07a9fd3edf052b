package dev.ateom.chv;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.util.ArrayList;
import java.util.List;

/** Real pipe fds to pass with SCM_RIGHTS in tests. */
final class Pipes implements AutoCloseable {
    interface C extends Library {
        C INSTANCE = Native.load("c", C.class);

        int pipe(int[] fds);

        int close(int fd);
    }

    final List<Integer> readEnds = new ArrayList<>();
    private final List<Integer> all = new ArrayList<>();

    Pipes(int count) {
        for (int i = 0; i < count; i++) {
            int[] fds = new int[2];
            if (C.INSTANCE.pipe(fds) != 0) {
                throw new IllegalStateException("pipe() failed");
            }
            readEnds.add(fds[0]);
            all.add(fds[0]);
            all.add(fds[1]);
        }
    }

    @Override
    public void close() {
        all.forEach(C.INSTANCE::close);
    }
}
