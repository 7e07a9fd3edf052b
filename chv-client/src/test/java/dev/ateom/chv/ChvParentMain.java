package dev.ateom.chv;

import java.nio.file.Path;

/** A stand-in "daemon" for {@link ChvProcessDeathTest}: starts CHV, prints its pid, waits to be killed. */
public final class ChvParentMain {
    private ChvParentMain() {
    }

    public static void main(String[] args) throws Exception {
        ChvProcess chv = ChvUnderTest.start(Path.of(args[0]), "orphan");
        // a short-lived thread must not matter: the launcher thread is the parent
        Thread starter = new Thread(() -> { });
        starter.start();
        starter.join();
        System.out.println("chv-pid " + chv.pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
