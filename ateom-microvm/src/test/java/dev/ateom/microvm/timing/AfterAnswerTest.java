package dev.ateom.microvm.timing;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Work left for after a request's answer: deferred inside {@link AfterAnswer#around}, at once outside it. */
class AfterAnswerTest {
    @Test
    void outsideARequestTheWorkRunsAtOnce() {
        List<String> ran = new ArrayList<>();
        AfterAnswer.run(() -> ran.add("work"));
        assertThat(ran).containsExactly("work");
    }

    @Test
    void insideARequestTheWorkRunsAfterItInOrder() {
        List<String> ran = new ArrayList<>();
        AfterAnswer.around(() -> {
            AfterAnswer.run(() -> ran.add("first"));
            AfterAnswer.run(() -> ran.add("second"));
            ran.add("answer");
        });
        assertThat(ran).containsExactly("answer", "first", "second");
    }

    @Test
    void aRequestThatThrowsStillHasItsWorkRunAndAFailedWorkStopsNoOther() {
        List<String> ran = new ArrayList<>();
        assertThatThrownBy(() -> AfterAnswer.around(() -> {
            AfterAnswer.run(() -> { throw new IllegalStateException("deferred work fails"); });
            AfterAnswer.run(() -> ran.add("work"));
            throw new IllegalArgumentException("the request fails");
        })).isInstanceOf(IllegalArgumentException.class).hasMessage("the request fails");
        assertThat(ran).containsExactly("work");
    }

    @Test
    void onceTheRequestIsDoneWorkRunsAtOnceAgain() {
        List<String> ran = new ArrayList<>();
        AfterAnswer.around(() -> ran.add("answer"));
        AfterAnswer.run(() -> ran.add("later"));
        assertThat(ran).containsExactly("answer", "later");
    }
}
