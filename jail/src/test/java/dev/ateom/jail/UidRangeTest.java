package dev.ateom.jail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UidRangeTest {
    @Test
    void parsesAnInclusiveRange() {
        UidRange range = UidRange.parse("1000-1009");
        assertThat(range.size()).isEqualTo(10);
        assertThat(range.contains(1009)).isTrue();
        assertThat(range.contains(1010)).isFalse();
    }

    @Test
    void refusesRootAndNonsense() {
        assertThatThrownBy(() -> UidRange.parse("0-10")).hasMessageContaining("above 0");
        assertThatThrownBy(() -> UidRange.parse("20-10")).hasMessageContaining("before it starts");
        assertThatThrownBy(() -> UidRange.parse("ten")).hasMessageContaining("A-B");
    }

    @Test
    void findsARealUserInsideTheRange(@TempDir Path tmp) throws IOException {
        Path passwd = Files.writeString(tmp.resolve("passwd"), "root:x:0:0::/root:/bin/sh\nalice:x:1005:1005::/home/alice:/bin/sh\n");
        assertThat(UidRange.parse("1000-1009").overlapIn(passwd)).hasValueSatisfying(v -> assertThat(v).contains("alice"));
        assertThat(UidRange.parse("2000-2009").overlapIn(passwd)).isEmpty();
    }

    @Test
    void theDefaultRangeOverlapsNoEntryOfThisHost() {
        assertThat(UidRange.DEFAULT.overlapIn(Path.of("/etc/passwd"))).isEmpty();
        assertThat(UidRange.DEFAULT.overlapIn(Path.of("/etc/group"))).isEmpty();
    }

    @Test
    void neverHandsOutALiveUidTwice() {
        UidAllocator allocator = new UidAllocator(UidRange.parse("10-13"));
        Set<Integer> live = new HashSet<>();
        for (int i = 0; i < 4; i++) assertThat(live.add(allocator.allocate().orElseThrow())).isTrue();
        assertThat(allocator.allocate()).isEmpty();
        allocator.free(12);
        assertThat(allocator.allocate()).hasValue(12);
        assertThat(allocator.adopt(12)).isFalse();
        allocator.free(11);
        assertThat(allocator.adopt(11)).isTrue();
        assertThat(allocator.allocate()).isEmpty();
    }
}
