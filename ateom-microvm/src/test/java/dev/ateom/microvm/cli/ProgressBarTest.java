package dev.ateom.microvm.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressBarTest {
    @Test
    void theBarFillsWithTheShareDoneAndNamesTheState() {
        assertThat(ProgressBar.line("pushing s-1", "pushing", 0, 100)).isEqualTo("pushing s-1 [" + ".".repeat(30) + "] 0% 0 B of 100 B pushing");
        assertThat(ProgressBar.line("pushing s-1", "pushing", 50, 100)).contains("[" + "#".repeat(15) + ".".repeat(15) + "] 50%");
        assertThat(ProgressBar.line("pushing s-1", "pushed", 100, 100)).contains("[" + "#".repeat(30) + "] 100%").endsWith("pushed");
        assertThat(ProgressBar.line("pushing s-1", "pending", 0, 0)).contains("0%");
    }
}
