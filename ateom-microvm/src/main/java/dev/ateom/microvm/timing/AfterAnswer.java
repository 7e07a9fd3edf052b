package dev.ateom.microvm.timing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Work an operation leaves for after its request's answer is sent: speculative work it caused (the next clone made
 * ahead) that would otherwise compete with the answer for the CPU. The HTTP layer runs each request {@link #around};
 * work handed to {@link #run} there waits until the request's handler returned, which is after its answer was written
 * (a handler sends its whole answer before it returns). Outside a request (an asynchronous operation, a test calling
 * the sandbox code) it runs at once.
 *
 * <p>Caveats: the deferred work runs on the request's thread, before the connection reads its next request, so it must
 * only start work (a thread), not do it. It also runs when the handler throws, before the error's answer is sent:
 * no work is lost, but then it is not after the answer.
 */
public final class AfterAnswer {
    private static final System.Logger LOG = System.getLogger(AfterAnswer.class.getName());
    /** Bound on the thread that serves one request: the work left for after its answer. */
    private static final ScopedValue<List<Runnable>> DEFERRED = ScopedValue.newInstance();

    private AfterAnswer() { }

    /** {@code work} after the current request's answer, or now when no request is being answered on this thread. */
    public static void run(Runnable work) {
        if (DEFERRED.isBound()) DEFERRED.get().add(work);
        else work.run();
    }

    /** Serves one request ({@code request} sends its answer), then runs what it left for after the answer, in order. */
    public static void around(Runnable request) {
        List<Runnable> deferred = Collections.synchronizedList(new ArrayList<>());
        try {
            ScopedValue.where(DEFERRED, deferred).run(request);
        } finally {
            for (Runnable work : List.copyOf(deferred)) {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    // the answer is sent: a failure here is the deferred work's own, logged, never the request's
                    LOG.log(WARNING, "work left for after an answer failed: " + e.getMessage(), e);
                }
            }
        }
    }
}
