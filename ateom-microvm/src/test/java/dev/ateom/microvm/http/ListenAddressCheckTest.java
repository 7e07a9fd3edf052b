package dev.ateom.microvm.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 12, item 8: plain HTTP off loopback is warned about at start. */
class ListenAddressCheckTest {
    @Test
    void loopbackNeedsNoWarning() {
        assertThat(ListenAddressCheck.warning("127.0.0.1")).isEmpty();
        assertThat(ListenAddressCheck.warning("localhost")).isEmpty();
        assertThat(ListenAddressCheck.warning("::1")).isEmpty();
    }

    @Test
    void anyOtherAddressIsWarnedAbout() {
        assertThat(ListenAddressCheck.warning("0.0.0.0")).hasValueSatisfying(w -> assertThat(w).contains("0.0.0.0", "TLS"));
        assertThat(ListenAddressCheck.warning("192.0.2.10")).isPresent();
        assertThat(ListenAddressCheck.warning("::")).isPresent();
    }
}
