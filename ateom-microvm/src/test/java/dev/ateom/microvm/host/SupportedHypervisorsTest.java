package dev.ateom.microvm.host;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Which Cloud Hypervisor versions the daemon runs with, and what it says about the others. */
class SupportedHypervisorsTest {
    @Test
    void versionsAreReadAsBothTheBinaryAndTheApiPrintThem() {
        assertThat(ChvVersion.parse("cloud-hypervisor v54.0.0")).contains(new ChvVersion(54, 0, 0));
        assertThat(ChvVersion.parse("53.1")).contains(new ChvVersion(53, 1, 0));
        assertThat(ChvVersion.parse("cloud-hypervisor")).isEmpty();
        assertThat(new ChvVersion(54, 0, 0)).hasToString("54.0.0");
    }

    @Test
    void v53AndV54AreSupportedOthersAreRefusedWithTheRangeAndWhatToDo() {
        Path chv = Path.of("/opt/chv");
        assertThat(SupportedHypervisors.problem(chv, answer("cloud-hypervisor v53.0.0"), "HINT")).isEmpty();
        assertThat(SupportedHypervisors.problem(chv, answer("cloud-hypervisor v54.2.1"), "HINT")).isEmpty();
        assertThat(SupportedHypervisors.problem(chv, answer("cloud-hypervisor v52.0.0"), "HINT")).get().asString()
                .contains("'/opt/chv' is v52.0.0").contains("v53 to v54").endsWith("HINT");
        assertThat(SupportedHypervisors.problem(chv, answer("cloud-hypervisor v55.0.0"), "HINT")).isPresent();
        assertThat(SupportedHypervisors.problem(chv, answer("Usage: something else"), "HINT")).get().asString()
                .contains("did not tell its version").contains("Usage: something else");
    }

    private static HypervisorVersionProbe.Answer answer(String printed) {
        return new HypervisorVersionProbe.Answer(ChvVersion.parse(printed), printed);
    }
}
