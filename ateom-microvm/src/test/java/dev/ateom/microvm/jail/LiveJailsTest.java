package dev.ateom.microvm.jail;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Two epochs of one sandbox live at once (a resume beside its suspend's teardown): each ends only its own jail. */
class LiveJailsTest {
    private final LiveJails live = new LiveJails();

    @Test
    void theOldEpochsReleaseLeavesTheNewOneCurrent() {
        VmmJail old = jail("sb", 1, 40001);
        VmmJail next = jail("sb", 2, 40002);
        live.put(old);
        live.put(next);
        assertThat(live.current("sb")).as("the newest epoch is the sandbox's current jail").hasValue(next);
        assertThat(live.all()).containsExactlyInAnyOrder(old, next);

        assertThat(live.remove("sb", 1)).as("the teardown of epoch 1 takes its own jail").hasValue(old);
        assertThat(live.remove("sb", 1)).as("once").isEmpty();
        assertThat(live.current("sb")).hasValue(next);
        assertThat(live.of("sb", 2)).hasValue(next);
        assertThat(live.of("sb", 1)).isEmpty();

        assertThat(live.remove("sb", 2)).hasValue(next);
        assertThat(live.current("sb")).isEmpty();
        assertThat(live.all()).isEmpty();
    }

    @Test
    void aFailedNewEpochLeavesTheOldOneToItsTeardown() {
        VmmJail old = jail("sb", 4, 40004);
        live.put(old);
        live.put(jail("sb", 5, 40005));
        live.put(jail("other", 1, 40006));
        // the new bring-up's rollback ends its jail first
        assertThat(live.remove("sb", 5)).isPresent();
        assertThat(live.current("sb")).hasValue(old);
        assertThat(live.currents()).extracting(VmmJail::sandboxId).containsExactlyInAnyOrder("sb", "other");
        assertThat(live.remove("sb", 3)).as("an epoch never live").isEmpty();
        assertThat(live.of("sb", 4)).hasValue(old);
    }

    private static VmmJail jail(String sandboxId, int epoch, int uid) {
        return new VmmJail(sandboxId, epoch, uid, Optional.empty(), Path.of("/out/e" + epoch), Path.of("/roots/" + sandboxId + "-e" + epoch),
                List.of(), Map.of());
    }
}
