package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostCompatibilityTest {
    private static final String CPUINFO = """
            processor\t: 0
            vendor_id\t: GenuineIntel
            cpu family\t: 6
            model\t\t: 85
            model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz
            flags\t\t: fpu vme sse2 avx2 avx512f

            processor\t: 1
            vendor_id\t: GenuineIntel
            cpu family\t: 6
            model\t\t: 85
            model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz
            flags\t\t: fpu vme sse2 avx2

            """;

    @Test
    void cpuinfoGivesVendorModelAndTheFlagsEveryProcessorHas() {
        CpuProfile cpu = CpuInfo.parse(CPUINFO);
        assertThat(cpu).isEqualTo(new CpuProfile("GenuineIntel", "6", "85", "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz",
                List.of("avx2", "fpu", "sse2", "vme")));
    }

    @Test
    void thisHostsCpuinfoCanBeRead() throws Exception {
        CpuProfile cpu = CpuInfo.current();
        assertThat(cpu.vendor()).isNotBlank();
        assertThat(cpu.flags()).isNotEmpty();
    }

    @Test
    void mismatchesAreNamedAndExtraFlagsOnTheHostAreFine() {
        CpuProfile taken = CpuInfo.parse(CPUINFO);
        HostRequirements snapshot = new HostRequirements("54.0.0", taken);
        CpuProfile richer = new CpuProfile("GenuineIntel", "6", "85", "", List.of("fpu", "vme", "sse2", "avx2", "amx"));
        assertThat(HostCompatibility.check(snapshot, richer, Optional.of("54.0.0"))).isEmpty();
        assertThat(HostCompatibility.check(snapshot, richer, Optional.empty())).isEmpty();

        CpuProfile poorer = new CpuProfile("AuthenticAMD", "25", "1", "", List.of("fpu", "sse2"));
        List<HostMismatch> mismatches = HostCompatibility.check(snapshot, poorer, Optional.of("55.0.0"));
        assertThat(mismatches).extracting(HostMismatch::field).containsExactly(HostMismatch.CHV_VERSION, HostMismatch.CPU_VENDOR,
                HostMismatch.CPU_MODEL, HostMismatch.CPU_FLAGS);
        assertThat(mismatches.getLast().describe()).isEqualTo("cpu.flags: this host lacks avx2 vme");
        assertThat(PullOptions.forHost("55.0.0").allowingCpuMismatch().allows(mismatches.get(1))).isTrue();
        assertThat(PullOptions.forHost("55.0.0").allowingCpuMismatch().allows(mismatches.getFirst())).isFalse();
    }
}
